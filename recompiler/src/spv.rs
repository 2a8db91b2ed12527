//! A thin layer over the module writer ([`crate::words`]): cached types and constants, the [`Lower`]
//! operations as SPIR-V instructions, function-local variables, storage-buffer and workgroup arrays, and
//! structured control flow helpers (every `if` has its selection merge, every loop its loop merge), so the
//! modules the compiler emits pass `spirv-val` by construction.

use crate::lower::{Bin, Cmp, Eval, HostF, Lower, SoftF, Ty, Un, Val};
use crate::words::Words;
use rspirv::spirv::{self, Op, Word};
use rustc_hash::FxHashMap as HashMap;

/// A SPIR-V value: its id and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sv {
    /// The result id.
    pub id: Word,
    /// Its type.
    pub ty: Ty,
}

/// u32 constants below this are looked up in a vector.
const SMALL: u32 = 1024;

/// [`Emit::class`] of a constant.
const CONST: u8 = 1;
/// [`Emit::class`] of an entry value.
const ENTRY: u8 = 2;

/// A pure operation: opcode, result type and up to four operands (0 past the last).
type Key = (u32, Word, [Word; 4]);

/// Does `op` compute its result from its operands alone (no memory, no side effect, defined for every
/// input the emitter gives it)? Such instructions are shared where they repeat.
fn is_pure(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | ISub
            | IMul
            | UDiv
            | UMod
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | Not
            | BitReverse
            | BitCount
            | ExtInst
            | IEqual
            | INotEqual
            | ULessThan
            | ULessThanEqual
            | UGreaterThan
            | UGreaterThanEqual
            | SLessThan
            | SLessThanEqual
            | SGreaterThan
            | SGreaterThanEqual
            | LogicalEqual
            | LogicalNotEqual
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | Select
            | UConvert
            | SConvert
            | AccessChain
    )
}

/// GLSL.std.450 instruction numbers used here (Khronos "GLSL.std.450 Extended Instruction Set" 1.00 rev 4).
mod glsl {
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FIND_ILSB: u32 = 73;
    pub const FIND_UMSB: u32 = 75;
}

/// The blocks of a loop [`Emit::open_loop`] opened.
#[derive(Clone, Copy, Debug)]
pub struct Loop {
    /// The loop header (the continue block branches back here).
    pub header: Word,
    /// The continue target.
    pub cont: Word,
    /// The merge block (after the loop).
    pub merge: Word,
}

/// The emitter: the module writer plus caches.
pub struct Emit {
    /// The underlying writer.
    pub b: Words,
    glsl: Word,
    /// void, bool, u32, u64.
    basic: [Word; 4],
    block_u32: Option<Word>,
    ptrs: HashMap<(spirv::StorageClass, Word), Word>,
    /// u32 constants below [`SMALL`] by value (most constants are small), the others by hash.
    small: Vec<Word>,
    k32s: HashMap<u32, Word>,
    k64s: HashMap<u64, Word>,
    kb: [Option<Word>; 2],
    /// Every constant's value by id: operations on constants are folded (by [`Eval`], the same semantics).
    kv: HashMap<Word, Val>,
    /// Per id: [`CONST`] for constants, [`ENTRY`] for values defined in the function's entry preamble or
    /// at module scope (variables, invocation ids), 0 otherwise (ids past the end too). Pure operations on
    /// constants and entry values are computed once, in the preamble ([`Emit::pure`]).
    class: Vec<u8>,
    /// Pure operations computed in the preamble.
    hoisted: HashMap<Key, Word>,
    /// Function-local arrays: (variable, array type, `OpConstantNull` of it once made).
    arrays: Vec<(Word, Word, Word)>,
    /// u64 constants below [`SMALL`] by value.
    small64: Vec<Word>,
    /// A u32 function variable set to 1 when a loop ended before its condition did (the host cut it short);
    /// `None` until the module declares it.
    pub loop_cut: Option<Word>,
    /// Loop-end checks emitted so far (each records its own number, for diagnosis).
    pub loop_sites: u32,
    /// Helper functions called so far, defined after the entry point ([`Emit::take_outlined`]).
    outlined: Vec<Outlined>,
    /// Whether the float engine may use host float operations under its guards ([`Lower::host_floats`]);
    /// the module must then declare what [`Emit::declare_float_controls`] declares.
    pub host_floats: bool,
    /// While a segment runs speculatively ([`Lower::unless`]): the function variable (a bool) that every
    /// host fast path's guard is and-ed into instead of branching to its integer path.
    pub speculate: Option<Word>,
    /// A guard was and-ed into [`Emit::speculate`] since it was last cleared.
    pub speculated: bool,
    /// Define helpers `DontInline` ([`crate::Shape::call_helpers`]).
    pub call_helpers: bool,
    /// Emit [`Lower::repeat`] as loops ([`crate::Shape::rolled_loops`]); off while a helper is defined,
    /// whose loops could not record an early end.
    pub rolled_loops: bool,
    /// The f32 type, once a host float operation used it.
    f32_type: Option<Word>,
    /// The launch info buffer, whose word [`crate::layout::INFO_ZERO`] the host sets to 0: what
    /// [`Emit::opaque`] reads. `None` in modules without one (constants then stay as they are).
    pub opaque_source: Option<Array>,
}

/// A helper function the module calls: emitted once, called wherever its code would have been inlined
/// (the host compiler inlines it again; the recompiler writes its words once).
#[derive(Clone, Debug)]
pub struct Outlined {
    /// The caller's name for the helper (one function per key and module).
    pub key: u32,
    /// The function's id.
    pub id: Word,
    /// Its return type.
    pub ret: Ty,
    /// Its parameter types.
    pub params: Vec<Ty>,
}

/// A storage buffer or workgroup array of u32 words: the variable and its storage class.
#[derive(Clone, Copy, Debug)]
pub struct Array {
    /// The variable (a struct wrapping a runtime array for storage buffers; an array for workgroup memory).
    pub var: Word,
    /// Where it lives.
    pub class: spirv::StorageClass,
    /// Whether the variable is a block struct whose member 0 is the array.
    pub wrapped: bool,
}

impl Emit {
    /// A module for Vulkan 1.1 compute (SPIR-V 1.3) with Int64 and the Vulkan memory model off (GLSL450).
    pub fn new() -> Emit {
        let mut b = Words::new(1, 3);
        b.capability(spirv::Capability::Shader);
        b.capability(spirv::Capability::Int64);
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let basic = [
            b.ty(Op::TypeVoid, &[]),
            b.ty(Op::TypeBool, &[]),
            b.ty(Op::TypeInt, &[32, 0]),
            b.ty(Op::TypeInt, &[64, 0]),
        ];
        Emit {
            b,
            glsl,
            basic,
            block_u32: None,
            ptrs: HashMap::with_capacity_and_hasher(32, Default::default()),
            small: vec![0; SMALL as usize],
            k32s: HashMap::with_capacity_and_hasher(64, Default::default()),
            k64s: HashMap::with_capacity_and_hasher(64, Default::default()),
            kb: [None, None],
            kv: HashMap::with_capacity_and_hasher(512, Default::default()),
            class: Vec::with_capacity(8192),
            hoisted: HashMap::with_capacity_and_hasher(512, Default::default()),
            arrays: Vec::new(),
            small64: vec![0; SMALL as usize],
            loop_cut: None,
            loop_sites: 0,
            outlined: Vec::new(),
            opaque_source: None,
            host_floats: false,
            speculate: None,
            speculated: false,
            call_helpers: false,
            rolled_loops: false,
            f32_type: None,
        }
    }

    /// The f32 type, declared on first use.
    fn t_f32(&mut self) -> Word {
        if let Some(t) = self.f32_type {
            return t;
        }
        let t = self.b.ty(Op::TypeFloat, &[32]);
        self.f32_type = Some(t);
        t
    }

    /// Whether a host float operation was emitted: the entry point `f` then needs
    /// [`Emit::declare_float_controls`].
    pub fn used_host_floats(&self) -> bool {
        self.f32_type.is_some()
    }

    /// Declares round-to-nearest-even for the f32 results of entry point `f` (SPV_KHR_float_controls,
    /// Vulkan 1.2 `shaderRoundingModeRTEFloat32`): what makes a host `OpFAdd` or `OpFMul` correctly rounded
    /// to nearest even rather than in a rounding the implementation picks.
    pub fn declare_float_controls(&mut self, f: Word) {
        self.b.extension("SPV_KHR_float_controls");
        self.b.capability(spirv::Capability::RoundingModeRTE);
        self.b
            .execution_mode(f, spirv::ExecutionMode::RoundingModeRTE, &[32]);
    }

    /// `a op b` of host f32s, from and to integer bit patterns, never contracted.
    fn host_arith(&mut self, op: Op, args: &[Sv]) -> Sv {
        let ft = self.t_f32();
        let fs: Vec<Word> = args
            .iter()
            .map(|a| self.b.res(Op::Bitcast, ft, &[a.id]))
            .collect();
        let r = self.b.res(op, ft, &fs);
        self.b.decorate(r, spirv::Decoration::NoContraction, &[]);
        let ty = self.t_u32();
        Sv {
            id: self.b.res(Op::Bitcast, ty, &[r]),
            ty: Ty::I32,
        }
    }

    /// The `void` type.
    pub fn t_void(&self) -> Word {
        self.basic[0]
    }
    /// `bool`.
    pub fn t_bool(&self) -> Word {
        self.basic[1]
    }
    /// `u32`.
    pub fn t_u32(&self) -> Word {
        self.basic[2]
    }
    /// `u64`.
    pub fn t_u64(&self) -> Word {
        self.basic[3]
    }
    /// The SPIR-V type of a [`Ty`].
    pub fn t_of(&self, t: Ty) -> Word {
        match t {
            Ty::Bool => self.basic[1],
            Ty::I32 => self.basic[2],
            Ty::I64 => self.basic[3],
        }
    }
    /// A pointer type.
    pub fn t_ptr(&mut self, class: spirv::StorageClass, pointee: Word) -> Word {
        if let Some(p) = self.ptrs.get(&(class, pointee)) {
            return *p;
        }
        let p = self.b.ty(Op::TypePointer, &[class as u32, pointee]);
        self.ptrs.insert((class, pointee), p);
        p
    }

    /// An `Input` variable of type `pointee` decorated as built-in `b` (invocation ids).
    pub fn builtin_input(&mut self, pointee: Word, b: spirv::BuiltIn) -> Word {
        let p = self.t_ptr(spirv::StorageClass::Input, pointee);
        let var = self
            .b
            .global(Op::Variable, p, &[spirv::StorageClass::Input as u32]);
        self.b
            .decorate(var, spirv::Decoration::BuiltIn, &[b as u32]);
        var
    }

    /// A function-local u32 array of `n` elements (the guest register files).
    pub fn local_array(&mut self, n: u32) -> Word {
        let u = self.t_u32();
        let len = self.c32(n);
        let arr = self.b.ty(Op::TypeArray, &[u, len]);
        let p = self.t_ptr(spirv::StorageClass::Function, arr);
        let v = self.b.function_variable(p);
        self.mark(v, ENTRY);
        self.arrays.push((v, arr, 0));
        v
    }

    /// Zeroes every element of the function-local array `var` ([`Emit::local_array`]) with one store.
    pub fn zero_local_array(&mut self, var: Word) {
        let Some(i) = self.arrays.iter().position(|a| a.0 == var) else {
            panic!("{var} is not a local array");
        };
        if self.arrays[i].2 == 0 {
            let null = self.b.global(Op::ConstantNull, self.arrays[i].1, &[]);
            self.arrays[i].2 = null;
        }
        let null = self.arrays[i].2;
        self.store_id(var, null);
    }

    /// A function-local variable of type `t`.
    pub fn local(&mut self, t: Ty) -> Word {
        let ty = self.t_of(t);
        let p = self.t_ptr(spirv::StorageClass::Function, ty);
        self.b.function_variable(p)
    }

    /// A `Private` variable of type `t`: per invocation like a function variable, but visible to the
    /// module's helper functions too.
    pub fn private(&mut self, t: Ty) -> Word {
        let ty = self.t_of(t);
        let p = self.t_ptr(spirv::StorageClass::Private, ty);
        let var = self
            .b
            .global(Op::Variable, p, &[spirv::StorageClass::Private as u32]);
        self.mark(var, ENTRY);
        var
    }

    /// A storage buffer `{ uint words[]; }` at set 0, `binding`.
    pub fn storage_buffer(&mut self, binding: u32, name: &str) -> Array {
        // One block type for every buffer, decorated once.
        let st = match self.block_u32 {
            Some(t) => t,
            None => {
                let u = self.t_u32();
                let rt = self.b.ty(Op::TypeRuntimeArray, &[u]);
                self.b.decorate(rt, spirv::Decoration::ArrayStride, &[4]);
                let st = self.b.type_struct(&[rt]);
                self.b.decorate(st, spirv::Decoration::Block, &[]);
                self.b
                    .member_decorate(st, 0, spirv::Decoration::Offset, &[0]);
                self.block_u32 = Some(st);
                st
            }
        };
        let p = self.t_ptr(spirv::StorageClass::StorageBuffer, st);
        let var = self.b.global(
            Op::Variable,
            p,
            &[spirv::StorageClass::StorageBuffer as u32],
        );
        self.mark(var, ENTRY);
        self.b.decorate(var, spirv::Decoration::DescriptorSet, &[0]);
        self.b.decorate(var, spirv::Decoration::Binding, &[binding]);
        self.b.name(var, name);
        Array {
            var,
            class: spirv::StorageClass::StorageBuffer,
            wrapped: true,
        }
    }

    /// A workgroup array of `n` u32 words.
    pub fn workgroup_array(&mut self, n: u32, name: &str) -> Array {
        let u = self.t_u32();
        let len = self.c32(n.max(1));
        let arr = self.b.ty(Op::TypeArray, &[u, len]);
        let p = self.t_ptr(spirv::StorageClass::Workgroup, arr);
        let var = self
            .b
            .global(Op::Variable, p, &[spirv::StorageClass::Workgroup as u32]);
        self.mark(var, ENTRY);
        self.b.name(var, name);
        Array {
            var,
            class: spirv::StorageClass::Workgroup,
            wrapped: false,
        }
    }

    /// A pointer to word `index` of `a`.
    pub fn elem(&mut self, a: Array, index: Word) -> Word {
        let u = self.t_u32();
        let p = self.t_ptr(a.class, u);
        if a.wrapped {
            let z = self.c32(0);
            self.pure(Op::AccessChain, p, &[a.var, z, index])
        } else {
            self.pure(Op::AccessChain, p, &[a.var, index])
        }
    }

    /// A pointer to element `index` of the function-local u32 array `var`.
    pub fn local_elem(&mut self, var: Word, index: Word) -> Word {
        let u = self.t_u32();
        let p = self.t_ptr(spirv::StorageClass::Function, u);
        self.pure(Op::AccessChain, p, &[var, index])
    }

    /// Records the class of `id` ([`CONST`] or [`ENTRY`]).
    fn mark(&mut self, id: Word, class: u8) {
        let i = id as usize;
        if self.class.len() <= i {
            self.class.resize(i + 1 + i / 2, 0);
        }
        self.class[i] = class;
    }

    /// The class of `id`.
    fn class(&self, id: Word) -> u8 {
        self.class.get(id as usize).copied().unwrap_or(0)
    }

    /// Loads a u32 in the entry preamble (an input variable the invocation cannot change): a value that
    /// dominates the whole function.
    pub fn entry_load(&mut self, ptr: Word) -> Sv {
        let u = self.t_u32();
        let id = self.b.entry_res(Op::Load, u, &[ptr]);
        self.mark(id, ENTRY);
        Sv { id, ty: Ty::I32 }
    }

    /// Component `i` of the `uvec3` input `ptr` (a built-in such as `WorkgroupId`), loaded in the entry
    /// preamble.
    pub fn entry_load_component(&mut self, ptr: Word, i: u32) -> Sv {
        let u = self.t_u32();
        let v3 = self.b.ty(Op::TypeVector, &[u, 3]);
        let v = self.b.entry_res(Op::Load, v3, &[ptr]);
        let id = self.b.entry_res(Op::CompositeExtract, u, &[v, i]);
        self.mark(id, ENTRY);
        Sv { id, ty: Ty::I32 }
    }

    /// A pure operation `op` of type `ty` on `args`: when every operand is a constant or an entry value,
    /// computed once, in the entry preamble.
    fn pure(&mut self, op: Op, ty: Word, args: &[Word]) -> Word {
        debug_assert!(is_pure(op) && args.len() <= 4);
        // An extended instruction's first two operands are the set and the instruction number.
        let values = if op == Op::ExtInst { &args[2..] } else { args };
        let global = values.iter().all(|&a| self.class(a) != 0);
        if global {
            let mut k = [0; 4];
            k[..args.len()].copy_from_slice(args);
            let key = (op as u32, ty, k);
            if let Some(&id) = self.hoisted.get(&key) {
                return id;
            }
            let id = self.b.entry_res(op, ty, args);
            self.mark(id, ENTRY);
            self.hoisted.insert(key, id);
            return id;
        }
        // Not shared within a block: a hash lookup per instruction cost more than the words it saved.
        self.b.res(op, ty, args)
    }

    /// Calls helper `key` (returning `ret`, parameters typed as `args`) on `args`; the helper is defined
    /// later, once per module, from [`Emit::take_outlined`]. A call is never folded: the helper's code is
    /// what it computes.
    pub fn call_outlined(&mut self, key: u32, ret: Ty, args: &[Sv]) -> Sv {
        let id = match self.outlined.iter().find(|o| o.key == key) {
            Some(o) => {
                debug_assert!(
                    o.ret == ret && o.params.iter().eq(args.iter().map(|a| &a.ty)),
                    "helper {key} called with another signature"
                );
                o.id
            }
            None => {
                let id = self.b.id();
                self.outlined.push(Outlined {
                    key,
                    id,
                    ret,
                    params: args.iter().map(|a| a.ty).collect(),
                });
                id
            }
        };
        assert!(args.len() < 16, "helper {key} takes at most 15 parameters");
        let ty = self.t_of(ret);
        let mut ops = [0; 16];
        ops[0] = id;
        for (o, a) in ops[1..].iter_mut().zip(args) {
            *o = a.id;
        }
        let r = self.b.res(Op::FunctionCall, ty, &ops[..1 + args.len()]);
        Sv { id: r, ty: ret }
    }

    /// The helpers called so far, to define with [`Emit::define`] after the calling function ended.
    pub fn take_outlined(&mut self) -> Vec<Outlined> {
        std::mem::take(&mut self.outlined)
    }

    /// Defines helper `f`: its parameters are given to `body`, whose value it returns. `body` runs in a
    /// function of its own: nothing it computes may come from another function's blocks (values hoisted
    /// into the caller's entry block are forgotten first), and it must not call helpers itself.
    pub fn define(&mut self, f: &Outlined, body: impl FnOnce(&mut Emit, &[Sv]) -> Sv) {
        self.hoisted.clear();
        let ret = self.t_of(f.ret);
        let mut sig = vec![ret];
        sig.extend(f.params.iter().map(|&t| self.t_of(t)));
        let fn_ty = self.b.ty(Op::TypeFunction, &sig);
        let control = if self.call_helpers {
            spirv::FunctionControl::DONT_INLINE
        } else {
            spirv::FunctionControl::NONE
        };
        self.b.begin_function_as(f.id, ret, control, fn_ty);
        let params: Vec<Sv> = f
            .params
            .iter()
            .map(|&t| {
                let ty = self.t_of(t);
                Sv {
                    id: self.b.parameter(ty),
                    ty: t,
                }
            })
            .collect();
        let label = self.b.id();
        self.b.begin_block(label);
        // The loop-end record is a variable of the entry point, out of a helper's reach, so a helper's
        // fixed-step computations stay unrolled (no loop to check).
        let cut = self.loop_cut.take();
        let rolled = std::mem::replace(&mut self.rolled_loops, false);
        let v = body(self, &params);
        self.loop_cut = cut;
        self.rolled_loops = rolled;
        assert!(
            self.outlined.is_empty(),
            "helper {} calls another helper",
            f.key
        );
        self.b.op(Op::ReturnValue, &[v.id]);
        self.b.end_function();
        self.hoisted.clear();
    }

    /// Loads a u32 through `ptr`.
    pub fn load32(&mut self, ptr: Word) -> Sv {
        self.load(ptr, Ty::I32)
    }

    /// Loads a value of type `t` through `ptr`.
    pub fn load(&mut self, ptr: Word, t: Ty) -> Sv {
        self.res(Op::Load, t, &[ptr])
    }

    /// Stores `v` through `ptr`.
    pub fn store(&mut self, ptr: Word, v: Sv) {
        self.b.op(Op::Store, &[ptr, v.id]);
    }

    /// Stores the value id `v` through `ptr`.
    pub fn store_id(&mut self, ptr: Word, v: Word) {
        self.b.op(Op::Store, &[ptr, v]);
    }

    /// A u32 constant id.
    pub fn c32(&mut self, v: u32) -> Word {
        if v < SMALL {
            let slot = self.small[v as usize];
            if slot != 0 {
                return slot;
            }
        } else if let Some(id) = self.k32s.get(&v) {
            return *id;
        }
        let u = self.t_u32();
        let id = self.b.global(Op::Constant, u, &[v]);
        self.kv.insert(id, Val::W(v));
        self.mark(id, CONST);
        if v < SMALL {
            self.small[v as usize] = id;
        } else {
            self.k32s.insert(v, id);
        }
        id
    }

    /// A u64 constant id.
    pub fn c64(&mut self, v: u64) -> Word {
        if v < SMALL as u64 {
            let slot = self.small64[v as usize];
            if slot != 0 {
                return slot;
            }
        } else if let Some(id) = self.k64s.get(&v) {
            return *id;
        }
        let u = self.t_u64();
        let id = self
            .b
            .global(Op::Constant, u, &[v as u32, (v >> 32) as u32]);
        if v < SMALL as u64 {
            self.small64[v as usize] = id;
        } else {
            self.k64s.insert(v, id);
        }
        self.kv.insert(id, Val::D(v));
        self.mark(id, CONST);
        id
    }

    /// A u32-typed result of `op` on the value ids `args` (integer division, conversions and the like).
    pub fn op32(&mut self, op: Op, args: &[Word]) -> Sv {
        self.res(op, Ty::I32, args)
    }

    /// An `OpAtomic*` on the u32 at `ptr` with `scope` and semantics `sem`, then the value ids `args`
    /// (for compare-exchange: the value, then the comparator; both semantics are `sem`). Its result (the old
    /// value), or `None` for `OpAtomicStore`.
    pub fn atomic32(
        &mut self,
        op: Op,
        ptr: Word,
        scope: spirv::Scope,
        sem: u32,
        args: &[Word],
    ) -> Option<Sv> {
        let scope = self.c32(scope as u32);
        let sem = self.c32(sem);
        let mut ops = vec![ptr, scope, sem];
        if op == Op::AtomicCompareExchange {
            ops.push(sem);
        }
        ops.extend_from_slice(args);
        if op == Op::AtomicStore {
            self.b.op(op, &ops);
            return None;
        }
        Some(self.op32(op, &ops))
    }

    /// The id of `ScopeWorkgroup` and the acquire-release semantics for workgroup and storage-buffer memory,
    /// for a barrier that orders every memory access of the workgroup.
    pub fn barrier(&mut self) {
        let scope = self.c32(spirv::Scope::Workgroup as u32);
        let sem = (spirv::MemorySemantics::ACQUIRE_RELEASE
            | spirv::MemorySemantics::WORKGROUP_MEMORY
            | spirv::MemorySemantics::UNIFORM_MEMORY)
            .bits();
        let sem = self.c32(sem);
        self.b.op(Op::ControlBarrier, &[scope, scope, sem]);
    }

    /// Begins a new block labelled `label` (the previous one must be terminated).
    pub fn block(&mut self, label: Word) {
        self.b.begin_block(label);
    }

    /// `OpBranch` to `target`.
    pub fn branch(&mut self, target: Word) {
        self.b.op(Op::Branch, &[target]);
    }

    /// `OpBranchConditional` on `cond`.
    pub fn branch_if(&mut self, cond: Sv, t: Word, f: Word) {
        self.b.op(Op::BranchConditional, &[cond.id, t, f]);
    }

    /// `OpSelectionMerge` naming `merge`.
    pub fn selection_merge(&mut self, merge: Word) {
        self.b.op(
            Op::SelectionMerge,
            &[merge, spirv::SelectionControl::NONE.bits()],
        );
    }

    /// `if cond { then() }`: a selection construct; the current block continues after it.
    pub fn if_then(&mut self, cond: Sv, then: impl FnOnce(&mut Emit)) {
        let t = self.b.id();
        let m = self.b.id();
        self.selection_merge(m);
        self.branch_if(cond, t, m);
        self.block(t);
        then(self);
        self.branch(m);
        self.block(m);
    }

    /// `if cond { a() } else { b() }`.
    pub fn if_else(&mut self, cond: Sv, a: impl FnOnce(&mut Emit), b: impl FnOnce(&mut Emit)) {
        let t = self.b.id();
        let f = self.b.id();
        let m = self.b.id();
        self.selection_merge(m);
        self.branch_if(cond, t, f);
        self.block(t);
        a(self);
        self.branch(m);
        self.block(f);
        b(self);
        self.branch(m);
        self.block(m);
    }

    /// Opens a structured loop (never unrolled: the bodies are large): branches to a new header, declares its
    /// merge and continue blocks, and leaves the builder in the first block of the body.
    pub fn open_loop(&mut self) -> Loop {
        let header = self.b.id();
        let first = self.b.id();
        let cont = self.b.id();
        let merge = self.b.id();
        self.branch(header);
        self.block(header);
        self.b.op(
            Op::LoopMerge,
            &[merge, cont, spirv::LoopControl::DONT_UNROLL.bits()],
        );
        self.branch(first);
        self.block(first);
        Loop {
            header,
            cont,
            merge,
        }
    }

    /// `for i in 0..n { body(i) }` with a function-local counter; `n` a u32 value.
    pub fn for_range(&mut self, n: Sv, body: impl FnOnce(&mut Emit, Sv)) {
        let i = self.local(Ty::I32);
        let z = self.c32(0);
        self.store_id(i, z);
        let Loop {
            header,
            cont,
            merge,
        } = self.open_loop();
        let body_l = self.b.id();
        let iv = self.load32(i);
        let more = self.cmp(Cmp::ULt, iv, n);
        self.branch_if(more, body_l, merge);
        self.block(body_l);
        body(self, iv);
        self.branch(cont);
        self.block(cont);
        let iv = self.load32(i);
        let one = self.k32(1);
        let next = self.bin(Bin::Add, iv, one);
        self.store(i, next);
        self.branch(header);
        self.block(merge);
        let iv = self.load32(i);
        let done = self.cmp(Cmp::UGe, iv, n);
        self.check_loop_end(done);
    }

    /// Records in [`Emit::loop_cut`] that a loop ended early unless `finished` holds: lavapipe leaves an
    /// invocation's loops after 65535 iterations in all, silently, so every loop checks its own ending.
    pub fn check_loop_end(&mut self, finished: Sv) {
        if let Some(var) = self.loop_cut {
            self.loop_sites += 1;
            let site = self.loop_sites;
            let early = self.bnot(finished);
            self.if_then(early, |e| {
                let one = e.k32(site);
                e.store(var, one);
            });
        }
    }

    fn glsl(&mut self, t: Ty, inst: u32, args: &[Word]) -> Sv {
        let mut ops = [0; 8];
        ops[0] = self.glsl;
        ops[1] = inst;
        ops[2..2 + args.len()].copy_from_slice(args);
        self.res(Op::ExtInst, t, &ops[..2 + args.len()])
    }

    /// `v` OR-ed with a zero the host compiler cannot see through (a launch-info word), so that it never
    /// rewrites `v` as the constant it is. Three host bugs need it: lavapipe's LLVM 15 selects an AVX-512
    /// ternlog with a constant operand wrongly (llvm-project issue 157929), lavapipe loses the zero's sign in
    /// an integer select between +-1.0 and +-0.0 bit patterns, and NVIDIA's compiler gets an f64 FMA's low
    /// dword wrong when its high dword is unused (the translator's `write_f64` ties the two through this
    /// zero; README, "Host limits and host bugs worked around").
    pub fn opaque(&mut self, v: Sv) -> Sv {
        let Some(info) = self.opaque_source else {
            return v;
        };
        let k = self.c32(crate::layout::INFO_ZERO);
        let p = self.elem(info, k);
        let z = self.load32(p);
        let z = if v.ty == Ty::I64 { self.zext(z) } else { z };
        self.bin(Bin::Or, v, z)
    }

    /// Whether a select between the constants `a` and `b` is one lavapipe gets wrong: one of them +-1.0, the
    /// other a zero of the other sign. Seen with `v_cubetc_f32`
    /// (conformance/fuzz-regressions/seed-9303-batch-879-program-7.toml: +0.0 for -0.0). Mesa's NIR rewrites
    /// `bcsel(a, 1.0, 0.0)` as `b2f(a)` and `bcsel(a, -1.0, -0.0)` as `fneg(b2f(a))` and compares a pattern's
    /// float constant by value, so -0.0 matches 0.0 (pop-os/mesa 6570a15662e7, Mesa 22.3.5:
    /// `src/compiler/nir/nir_opt_algebraic.py`'s `bcsel@32`/`bcsel@64` rules, `nir_search.c`'s `match_value`);
    /// both sign mixes are covered. The emitter has no 16-bit types, so the `bcsel@16` rules cannot match.
    fn zero_sign_select(&self, a: Sv, b: Sv) -> bool {
        let (Some(x), Some(y)) = (self.known(a), self.known(b)) else {
            return false;
        };
        let (x, y, sign, one) = match (x, y) {
            (Val::W(x), Val::W(y)) => (u64::from(x), u64::from(y), 1u64 << 31, 0x3f80_0000u64),
            (Val::D(x), Val::D(y)) => (x, y, 1u64 << 63, 0x3ff0_0000_0000_0000),
            _ => return false,
        };
        let risky = |z: u64, o: u64| z & !sign == 0 && o & !sign == one && (z ^ o) & sign != 0;
        risky(x, y) || risky(y, x)
    }

    /// The value of `v` if it is a constant.
    fn known(&self, v: Sv) -> Option<Val> {
        if self.class(v.id) != CONST {
            return None;
        }
        self.kv.get(&v.id).copied()
    }

    /// The value of a 32-bit `v` if it is a constant.
    pub fn const32(&self, v: Sv) -> Option<u32> {
        match self.known(v)? {
            Val::W(w) => Some(w),
            _ => None,
        }
    }

    /// The constant holding `v`.
    fn konst(&mut self, v: Val) -> Sv {
        match v {
            Val::B(b) => self.kbool(b),
            Val::W(w) => self.k32(w),
            Val::D(d) => self.k64(d),
        }
    }

    /// `f` on the values of `a` and `b` as a constant, when both are constants.
    fn fold2(&mut self, a: Sv, b: Sv, f: impl FnOnce(&mut Eval, Val, Val) -> Val) -> Option<Sv> {
        let (x, y) = (self.known(a)?, self.known(b)?);
        let r = f(&mut Eval, x, y);
        Some(self.konst(r))
    }

    /// `f` on the value of `a` as a constant, when it is one.
    fn fold1(&mut self, a: Sv, f: impl FnOnce(&mut Eval, Val) -> Val) -> Option<Sv> {
        let x = self.known(a)?;
        let r = f(&mut Eval, x);
        Some(self.konst(r))
    }

    /// A result of type `t` of `op` on `args`.
    fn res(&mut self, op: Op, t: Ty, args: &[Word]) -> Sv {
        let ty = self.t_of(t);
        let id = if is_pure(op) && args.len() <= 4 {
            self.pure(op, ty, args)
        } else {
            self.b.res(op, ty, args)
        };
        Sv { id, ty: t }
    }

    fn shift_amount(&mut self, v: Sv, b: Sv) -> Word {
        // SPIR-V leaves shifts by the width or more undefined: the amount is taken modulo the width here.
        let m = self.k_like(v, if v.ty == Ty::I64 { 63 } else { 31 });
        let and = self.bin(Bin::And, b, m);
        and.id
    }
}

impl Default for Emit {
    fn default() -> Self {
        Emit::new()
    }
}

impl Lower for Emit {
    type V = Sv;

    fn ty(&self, v: Sv) -> Ty {
        v.ty
    }
    fn k32(&mut self, v: u32) -> Sv {
        Sv {
            id: self.c32(v),
            ty: Ty::I32,
        }
    }
    fn k64(&mut self, v: u64) -> Sv {
        Sv {
            id: self.c64(v),
            ty: Ty::I64,
        }
    }
    fn kbool(&mut self, v: bool) -> Sv {
        let slot = v as usize;
        if let Some(id) = self.kb[slot] {
            return Sv { id, ty: Ty::Bool };
        }
        let t = self.t_bool();
        let op = if v {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        let id = self.b.global(op, t, &[]);
        self.kb[slot] = Some(id);
        self.kv.insert(id, Val::B(v));
        self.mark(id, CONST);
        Sv { id, ty: Ty::Bool }
    }
    fn bin(&mut self, op: Bin, a: Sv, b: Sv) -> Sv {
        if let Some(k) = self.fold2(a, b, |e, x, y| e.bin(op, x, y)) {
            return k;
        }
        let op = match op {
            Bin::Add => Op::IAdd,
            Bin::Sub => Op::ISub,
            Bin::Mul => Op::IMul,
            Bin::And => Op::BitwiseAnd,
            Bin::Or => Op::BitwiseOr,
            Bin::Xor => Op::BitwiseXor,
            Bin::UMin => return self.glsl(a.ty, glsl::UMIN, &[a.id, b.id]),
            Bin::UMax => return self.glsl(a.ty, glsl::UMAX, &[a.id, b.id]),
            Bin::SMin => return self.glsl(a.ty, glsl::SMIN, &[a.id, b.id]),
            Bin::SMax => return self.glsl(a.ty, glsl::SMAX, &[a.id, b.id]),
            Bin::Shl | Bin::LShr | Bin::AShr => {
                let s = self.shift_amount(a, b);
                let op = match op {
                    Bin::Shl => Op::ShiftLeftLogical,
                    Bin::LShr => Op::ShiftRightLogical,
                    _ => Op::ShiftRightArithmetic,
                };
                return self.res(op, a.ty, &[a.id, s]);
            }
        };
        self.res(op, a.ty, &[a.id, b.id])
    }
    fn un(&mut self, op: Un, a: Sv) -> Sv {
        if let Some(k) = self.fold1(a, |e, x| e.un(op, x)) {
            return k;
        }
        match op {
            Un::Not => self.res(Op::Not, a.ty, &[a.id]),
            Un::BitRev if a.ty == Ty::I32 => self.res(Op::BitReverse, a.ty, &[a.id]),
            Un::BitCount if a.ty == Ty::I32 => self.res(Op::BitCount, a.ty, &[a.id]),
            // 64-bit forms through the two halves: Vulkan's Int64 does not cover every bit instruction.
            Un::BitRev => {
                let lo = self.trunc(a);
                let hi = self.hi(a);
                let (rl, rh) = (self.un(Un::BitRev, lo), self.un(Un::BitRev, hi));
                self.pack(rh, rl)
            }
            Un::BitCount => {
                let lo = self.trunc(a);
                let hi = self.hi(a);
                let (cl, ch) = (self.un(Un::BitCount, lo), self.un(Un::BitCount, hi));
                let s = self.bin(Bin::Add, cl, ch);
                self.zext(s)
            }
            Un::FindLsb if a.ty == Ty::I32 => self.glsl(Ty::I32, glsl::FIND_ILSB, &[a.id]),
            Un::FindMsb if a.ty == Ty::I32 => self.glsl(Ty::I32, glsl::FIND_UMSB, &[a.id]),
            Un::FindLsb => {
                let lo = self.trunc(a);
                let hi = self.hi(a);
                let fl = self.un(Un::FindLsb, lo);
                let fh = self.un(Un::FindLsb, hi);
                let none = self.k32(u32::MAX);
                let hi_none = self.cmp(Cmp::Eq, fh, none);
                let fh32 = self.bink(Bin::Add, fh, 32);
                let h = self.select(hi_none, none, fh32);
                let lo_none = self.cmp(Cmp::Eq, fl, none);
                self.select(lo_none, h, fl)
            }
            Un::FindMsb => {
                let lo = self.trunc(a);
                let hi = self.hi(a);
                let fl = self.un(Un::FindMsb, lo);
                let fh = self.un(Un::FindMsb, hi);
                let none = self.k32(u32::MAX);
                let hi_none = self.cmp(Cmp::Eq, fh, none);
                let fh32 = self.bink(Bin::Add, fh, 32);
                self.select(hi_none, fl, fh32)
            }
        }
    }
    fn cmp(&mut self, c: Cmp, a: Sv, b: Sv) -> Sv {
        if let Some(k) = self.fold2(a, b, |e, x, y| e.cmp(c, x, y)) {
            return k;
        }
        let op = if a.ty == Ty::Bool {
            match c {
                Cmp::Eq => Op::LogicalEqual,
                _ => Op::LogicalNotEqual,
            }
        } else {
            match c {
                Cmp::Eq => Op::IEqual,
                Cmp::Ne => Op::INotEqual,
                Cmp::ULt => Op::ULessThan,
                Cmp::ULe => Op::ULessThanEqual,
                Cmp::UGt => Op::UGreaterThan,
                Cmp::UGe => Op::UGreaterThanEqual,
                Cmp::SLt => Op::SLessThan,
                Cmp::SLe => Op::SLessThanEqual,
                Cmp::SGt => Op::SGreaterThan,
                Cmp::SGe => Op::SGreaterThanEqual,
            }
        };
        self.res(op, Ty::Bool, &[a.id, b.id])
    }
    fn select(&mut self, c: Sv, a: Sv, b: Sv) -> Sv {
        match self.known(c) {
            Some(Val::B(true)) => return a,
            Some(Val::B(false)) => return b,
            _ if a == b => return a,
            _ => {}
        }
        let a = if self.zero_sign_select(a, b) {
            self.opaque(a)
        } else {
            a
        };
        self.res(Op::Select, a.ty, &[c.id, a.id, b.id])
    }
    fn band(&mut self, a: Sv, b: Sv) -> Sv {
        if let Some(k) = self.fold2(a, b, |e, x, y| e.band(x, y)) {
            return k;
        }
        // One constant operand decides or drops out.
        match (self.known(a), self.known(b)) {
            (Some(Val::B(false)), _) => return a,
            (_, Some(Val::B(false))) => return b,
            (Some(Val::B(true)), _) => return b,
            (_, Some(Val::B(true))) => return a,
            _ => {}
        }
        self.res(Op::LogicalAnd, Ty::Bool, &[a.id, b.id])
    }
    fn bor(&mut self, a: Sv, b: Sv) -> Sv {
        if let Some(k) = self.fold2(a, b, |e, x, y| e.bor(x, y)) {
            return k;
        }
        match (self.known(a), self.known(b)) {
            (Some(Val::B(true)), _) => return a,
            (_, Some(Val::B(true))) => return b,
            (Some(Val::B(false)), _) => return b,
            (_, Some(Val::B(false))) => return a,
            _ => {}
        }
        self.res(Op::LogicalOr, Ty::Bool, &[a.id, b.id])
    }
    fn bnot(&mut self, a: Sv) -> Sv {
        if let Some(k) = self.fold1(a, |e, x| e.bnot(x)) {
            return k;
        }
        self.res(Op::LogicalNot, Ty::Bool, &[a.id])
    }
    fn zext(&mut self, a: Sv) -> Sv {
        if let Some(k) = self.fold1(a, |e, x| e.zext(x)) {
            return k;
        }
        self.res(Op::UConvert, Ty::I64, &[a.id])
    }
    fn sext(&mut self, a: Sv) -> Sv {
        if let Some(k) = self.fold1(a, |e, x| e.sext(x)) {
            return k;
        }
        // OpSConvert on unsigned types sign-extends (SPIR-V: the operand is treated as signed).
        self.res(Op::SConvert, Ty::I64, &[a.id])
    }
    fn trunc(&mut self, a: Sv) -> Sv {
        if let Some(k) = self.fold1(a, |e, x| e.trunc(x)) {
            return k;
        }
        self.res(Op::UConvert, Ty::I32, &[a.id])
    }
    fn host_floats(&self) -> bool {
        self.host_floats
    }
    fn host(&mut self, op: HostF, args: &[Sv]) -> Sv {
        debug_assert!(
            self.host_floats,
            "a host float operation in a module without float controls"
        );
        match op {
            HostF::Add32 => self.host_arith(Op::FAdd, args),
            HostF::Mul32 => self.host_arith(Op::FMul, args),
        }
    }
    fn soft(&mut self, op: SoftF, args: &[Sv], _body: impl FnOnce(&mut Self, &[Sv]) -> Sv) -> Sv {
        // `define_helpers` emits the body once (no helper body adds or multiplies floats; `define`
        // asserts that none calls a helper).
        self.call_outlined(crate::units::soft_helper(op).key(), Ty::I32, args)
    }
    fn repeat(
        &mut self,
        n: u32,
        state: &[Sv],
        mut body: impl FnMut(&mut Self, Sv, &[Sv]) -> Vec<Sv>,
    ) -> Vec<Sv> {
        if !self.rolled_loops || n < 2 {
            return crate::lower::unrolled(self, n, state, body);
        }
        // Function variables carry the state around the loop (the body may open blocks of its own).
        let vars: Vec<(Word, Ty)> = state
            .iter()
            .map(|v| {
                let var = self.local(v.ty);
                self.store(var, *v);
                (var, v.ty)
            })
            .collect();
        // A bound the host compiler cannot see: NVIDIA's appears to unroll constant-bound loops whatever
        // `DontUnroll` says, and compiled these 4 to 9 % faster per word (README, "Speed figures").
        let nk = self.k32(n);
        let nk = self.opaque(nk);
        self.for_range(nk, |e, i| {
            let s: Vec<Sv> = vars.iter().map(|&(var, t)| e.load(var, t)).collect();
            let out = body(e, i, &s);
            assert_eq!(out.len(), vars.len(), "a step keeps the state's shape");
            for (&(var, _), v) in vars.iter().zip(out) {
                e.store(var, v);
            }
        });
        vars.iter().map(|&(var, t)| self.load(var, t)).collect()
    }
    fn unless(&mut self, c: Sv, fast: Sv, slow: impl FnOnce(&mut Self) -> Sv) -> Sv {
        if let Some(k) = self.known(c) {
            return if k.b() { fast } else { slow(self) };
        }
        if let Some(flag) = self.speculate {
            self.speculated = true;
            let f = self.load(flag, Ty::Bool);
            let n = self.band(f, c);
            self.store(flag, n);
            return fast;
        }
        // A function variable, not a phi: the slow path may open blocks of its own.
        let var = self.local(fast.ty);
        self.store(var, fast);
        let miss = self.bnot(c);
        self.if_then(miss, |e| {
            let v = slow(e);
            e.store(var, v);
        });
        self.load(var, fast.ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_selects_between_one_and_a_zero_of_the_other_sign_are_hidden() {
        let mut e = Emit::new();
        let mut risky = |x: u64, y: u64, wide: bool| {
            let (a, b) = if wide {
                (e.k64(x), e.k64(y))
            } else {
                (e.k32(x as u32), e.k32(y as u32))
            };
            e.zero_sign_select(a, b)
        };
        // The v_cubetc_f32 case and its mirror images, in f32 and f64.
        assert!(risky(0x8000_0000, 0x3f80_0000, false));
        assert!(risky(0x3f80_0000, 0x8000_0000, false));
        assert!(risky(0, 0xbf80_0000, false));
        assert!(risky(0x8000_0000_0000_0000, 0x3ff0_0000_0000_0000, true));
        assert!(risky(0, 0xbff0_0000_0000_0000, true));
        // NIR's own rewrites of these are exact; other constants match no pattern.
        assert!(!risky(0, 0x3f80_0000, false));
        assert!(!risky(0x8000_0000, 0xbf80_0000, false));
        assert!(!risky(0x8000_0000, 0x4000_0000, false));
        assert!(!risky(1, 0x3f80_0000, false));
        assert!(!risky(0x8000_0000, 0x3f80_0000, true));
    }

    #[test]
    fn an_opaque_value_is_no_constant_where_the_module_has_launch_info() {
        let mut e = Emit::new();
        let k = e.k32(39);
        assert_eq!(e.opaque(k), k, "no launch info: the constant stays");
        e.opaque_source = Some(e.storage_buffer(crate::layout::BIND_INFO, "launch_info"));
        for v in [e.k32(39), e.k64(1 << 40)] {
            let o = e.opaque(v);
            assert_eq!(o.ty, v.ty);
            assert!(e.known(o).is_none(), "{v:?} is still a constant");
        }
    }
}
