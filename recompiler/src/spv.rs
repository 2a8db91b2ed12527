//! A thin layer over `rspirv`'s builder: cached types and constants, the [`Lower`] operations as SPIR-V
//! instructions, function-local variables, storage-buffer and workgroup arrays, and structured control flow
//! helpers (every `if` has its selection merge, every loop its loop merge), so the modules the compiler emits
//! pass `spirv-val` by construction.

use crate::lower::{Bin, Cmp, Lower, Ty, Un};
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};
use std::collections::HashMap;

/// A SPIR-V value: its id and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sv {
    /// The result id.
    pub id: Word,
    /// Its type.
    pub ty: Ty,
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

/// The emitter: a builder plus caches. Panics only on a builder misuse (a bug), which the tests run through.
pub struct Emit {
    /// The underlying builder.
    pub b: Builder,
    glsl: Word,
    types: HashMap<&'static str, Word>,
    ptrs: HashMap<(spirv::StorageClass, Word), Word>,
    k32s: HashMap<u32, Word>,
    k64s: HashMap<u64, Word>,
    kb: [Option<Word>; 2],
    /// A u32 function variable set to 1 when a loop ended before its condition did (the host cut it short);
    /// `None` until the module declares it.
    pub loop_cut: Option<Word>,
    /// Loop-end checks emitted so far (each records its own number, for diagnosis).
    pub loop_sites: u32,
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
        let mut b = Builder::new();
        b.set_version(1, 3);
        b.capability(spirv::Capability::Shader);
        b.capability(spirv::Capability::Int64);
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        Emit {
            b,
            glsl,
            types: HashMap::new(),
            ptrs: HashMap::new(),
            k32s: HashMap::new(),
            k64s: HashMap::new(),
            kb: [None, None],
            loop_cut: None,
            loop_sites: 0,
        }
    }

    /// The `void` type.
    pub fn t_void(&mut self) -> Word {
        *self
            .types
            .entry("void")
            .or_insert_with(|| self.b.type_void())
    }
    /// `bool`.
    pub fn t_bool(&mut self) -> Word {
        *self
            .types
            .entry("bool")
            .or_insert_with(|| self.b.type_bool())
    }
    /// `u32`.
    pub fn t_u32(&mut self) -> Word {
        *self
            .types
            .entry("u32")
            .or_insert_with(|| self.b.type_int(32, 0))
    }
    /// `u64`.
    pub fn t_u64(&mut self) -> Word {
        *self
            .types
            .entry("u64")
            .or_insert_with(|| self.b.type_int(64, 0))
    }
    /// The SPIR-V type of a [`Ty`].
    pub fn t_of(&mut self, t: Ty) -> Word {
        match t {
            Ty::Bool => self.t_bool(),
            Ty::I32 => self.t_u32(),
            Ty::I64 => self.t_u64(),
        }
    }
    /// A pointer type.
    pub fn t_ptr(&mut self, class: spirv::StorageClass, pointee: Word) -> Word {
        if let Some(p) = self.ptrs.get(&(class, pointee)) {
            return *p;
        }
        let p = self.b.type_pointer(None, class, pointee);
        self.ptrs.insert((class, pointee), p);
        p
    }

    /// A function-local u32 array of `n` elements (the guest register files).
    pub fn local_array(&mut self, n: u32) -> Word {
        let u = self.t_u32();
        let len = self.c32(n);
        let arr = self.b.type_array(u, len);
        let p = self.t_ptr(spirv::StorageClass::Function, arr);
        self.function_variable(p)
    }

    /// A function-local variable of type `t`.
    pub fn local(&mut self, t: Ty) -> Word {
        let ty = self.t_of(t);
        let p = self.t_ptr(spirv::StorageClass::Function, ty);
        self.function_variable(p)
    }

    /// An `OpVariable` of Function storage: SPIR-V wants them at the start of the function's first block,
    /// wherever the code that needs one is being emitted.
    fn function_variable(&mut self, ptr_ty: Word) -> Word {
        let id = self.b.id();
        let inst = rspirv::dr::Instruction::new(
            spirv::Op::Variable,
            Some(ptr_ty),
            Some(id),
            vec![Operand::StorageClass(spirv::StorageClass::Function)],
        );
        let f = self.b.selected_function().expect("inside a function");
        self.b.module_mut().functions[f].blocks[0]
            .instructions
            .insert(0, inst);
        id
    }

    /// A storage buffer `{ uint words[]; }` at set 0, `binding`.
    pub fn storage_buffer(&mut self, binding: u32, name: &str) -> Array {
        // One block type for every buffer: the builder deduplicates types, so it is decorated once.
        let st = match self.types.get("block_u32") {
            Some(&t) => t,
            None => {
                let u = self.t_u32();
                let rt = self.b.type_runtime_array(u);
                self.b.decorate(
                    rt,
                    spirv::Decoration::ArrayStride,
                    [Operand::LiteralBit32(4)],
                );
                let st = self.b.type_struct([rt]);
                self.b.decorate(st, spirv::Decoration::Block, []);
                self.b.member_decorate(
                    st,
                    0,
                    spirv::Decoration::Offset,
                    [Operand::LiteralBit32(0)],
                );
                self.types.insert("block_u32", st);
                st
            }
        };
        let p = self.t_ptr(spirv::StorageClass::StorageBuffer, st);
        let var = self
            .b
            .variable(p, None, spirv::StorageClass::StorageBuffer, None);
        self.b.decorate(
            var,
            spirv::Decoration::DescriptorSet,
            [Operand::LiteralBit32(0)],
        );
        self.b.decorate(
            var,
            spirv::Decoration::Binding,
            [Operand::LiteralBit32(binding)],
        );
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
        let arr = self.b.type_array(u, len);
        let p = self.t_ptr(spirv::StorageClass::Workgroup, arr);
        let var = self
            .b
            .variable(p, None, spirv::StorageClass::Workgroup, None);
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
            self.b
                .access_chain(p, None, a.var, [z, index])
                .expect("access chain")
        } else {
            self.b
                .access_chain(p, None, a.var, [index])
                .expect("access chain")
        }
    }

    /// A pointer to element `index` of the function-local u32 array `var`.
    pub fn local_elem(&mut self, var: Word, index: Word) -> Word {
        let u = self.t_u32();
        let p = self.t_ptr(spirv::StorageClass::Function, u);
        self.b
            .access_chain(p, None, var, [index])
            .expect("access chain")
    }

    /// Loads a u32 through `ptr`.
    pub fn load32(&mut self, ptr: Word) -> Sv {
        let u = self.t_u32();
        Sv {
            id: self.b.load(u, None, ptr, None, []).expect("load"),
            ty: Ty::I32,
        }
    }

    /// Loads a value of type `t` through `ptr`.
    pub fn load(&mut self, ptr: Word, t: Ty) -> Sv {
        let ty = self.t_of(t);
        Sv {
            id: self.b.load(ty, None, ptr, None, []).expect("load"),
            ty: t,
        }
    }

    /// Stores `v` through `ptr`.
    pub fn store(&mut self, ptr: Word, v: Sv) {
        self.b.store(ptr, v.id, None, []).expect("store");
    }

    /// A u32 constant id.
    pub fn c32(&mut self, v: u32) -> Word {
        if let Some(id) = self.k32s.get(&v) {
            return *id;
        }
        let u = self.t_u32();
        let id = self.b.constant_bit32(u, v);
        self.k32s.insert(v, id);
        id
    }

    /// A u64 constant id.
    pub fn c64(&mut self, v: u64) -> Word {
        if let Some(id) = self.k64s.get(&v) {
            return *id;
        }
        let u = self.t_u64();
        let id = self.b.constant_bit64(u, v);
        self.k64s.insert(v, id);
        id
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
        self.b.control_barrier(scope, scope, sem).expect("barrier");
    }

    /// Begins a new block labelled `label` (the previous one must be terminated).
    pub fn block(&mut self, label: Word) {
        self.b.begin_block(Some(label)).expect("block");
    }

    /// `if cond { then() }`: a selection construct; the current block continues after it.
    pub fn if_then(&mut self, cond: Sv, then: impl FnOnce(&mut Emit)) {
        let t = self.b.id();
        let m = self.b.id();
        self.b
            .selection_merge(m, spirv::SelectionControl::NONE)
            .expect("merge");
        self.b
            .branch_conditional(cond.id, t, m, [])
            .expect("branch");
        self.block(t);
        then(self);
        self.b.branch(m).expect("branch");
        self.block(m);
    }

    /// `if cond { a() } else { b() }`.
    pub fn if_else(&mut self, cond: Sv, a: impl FnOnce(&mut Emit), b: impl FnOnce(&mut Emit)) {
        let t = self.b.id();
        let f = self.b.id();
        let m = self.b.id();
        self.b
            .selection_merge(m, spirv::SelectionControl::NONE)
            .expect("merge");
        self.b
            .branch_conditional(cond.id, t, f, [])
            .expect("branch");
        self.block(t);
        a(self);
        self.b.branch(m).expect("branch");
        self.block(f);
        b(self);
        self.b.branch(m).expect("branch");
        self.block(m);
    }

    /// Opens a structured loop (never unrolled: the bodies are large): branches to a new header, declares its
    /// merge and continue blocks, and leaves the builder in the first block of the body.
    pub fn open_loop(&mut self) -> Loop {
        let header = self.b.id();
        let first = self.b.id();
        let cont = self.b.id();
        let merge = self.b.id();
        self.b.branch(header).expect("branch");
        self.block(header);
        self.b
            .loop_merge(merge, cont, spirv::LoopControl::DONT_UNROLL, [])
            .expect("loop");
        self.b.branch(first).expect("branch");
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
        self.b.store(i, z, None, []).expect("store");
        let Loop {
            header,
            cont,
            merge,
        } = self.open_loop();
        let body_l = self.b.id();
        let iv = self.load32(i);
        let more = self.cmp(Cmp::ULt, iv, n);
        self.b
            .branch_conditional(more.id, body_l, merge, [])
            .expect("branch");
        self.block(body_l);
        body(self, iv);
        self.b.branch(cont).expect("branch");
        self.block(cont);
        let iv = self.load32(i);
        let one = self.k32(1);
        let next = self.bin(Bin::Add, iv, one);
        self.store(i, next);
        self.b.branch(header).expect("branch");
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
        let ty = self.t_of(t);
        let id = self
            .b
            .ext_inst(
                ty,
                None,
                self.glsl,
                inst,
                args.iter().map(|a| Operand::IdRef(*a)),
            )
            .expect("ext inst");
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
        let id = if v {
            self.b.constant_true(t)
        } else {
            self.b.constant_false(t)
        };
        self.kb[slot] = Some(id);
        Sv { id, ty: Ty::Bool }
    }
    fn bin(&mut self, op: Bin, a: Sv, b: Sv) -> Sv {
        let t = self.t_of(a.ty);
        let id = match op {
            Bin::Add => self.b.i_add(t, None, a.id, b.id),
            Bin::Sub => self.b.i_sub(t, None, a.id, b.id),
            Bin::Mul => self.b.i_mul(t, None, a.id, b.id),
            Bin::And => self.b.bitwise_and(t, None, a.id, b.id),
            Bin::Or => self.b.bitwise_or(t, None, a.id, b.id),
            Bin::Xor => self.b.bitwise_xor(t, None, a.id, b.id),
            Bin::UMin => return self.glsl(a.ty, glsl::UMIN, &[a.id, b.id]),
            Bin::UMax => return self.glsl(a.ty, glsl::UMAX, &[a.id, b.id]),
            Bin::SMin => return self.glsl(a.ty, glsl::SMIN, &[a.id, b.id]),
            Bin::SMax => return self.glsl(a.ty, glsl::SMAX, &[a.id, b.id]),
            Bin::Shl => {
                let s = self.shift_amount(a, b);
                self.b.shift_left_logical(t, None, a.id, s)
            }
            Bin::LShr => {
                let s = self.shift_amount(a, b);
                self.b.shift_right_logical(t, None, a.id, s)
            }
            Bin::AShr => {
                let s = self.shift_amount(a, b);
                self.b.shift_right_arithmetic(t, None, a.id, s)
            }
        }
        .expect("binary op");
        Sv { id, ty: a.ty }
    }
    fn un(&mut self, op: Un, a: Sv) -> Sv {
        let t = self.t_of(a.ty);
        match op {
            Un::Not => Sv {
                id: self.b.not(t, None, a.id).expect("not"),
                ty: a.ty,
            },
            Un::BitRev if a.ty == Ty::I32 => Sv {
                id: self.b.bit_reverse(t, None, a.id).expect("bitrev"),
                ty: a.ty,
            },
            Un::BitCount if a.ty == Ty::I32 => Sv {
                id: self.b.bit_count(t, None, a.id).expect("bitcount"),
                ty: a.ty,
            },
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
        let t = self.t_bool();
        let id = if a.ty == Ty::Bool {
            match c {
                Cmp::Eq => self.b.logical_equal(t, None, a.id, b.id),
                _ => self.b.logical_not_equal(t, None, a.id, b.id),
            }
        } else {
            match c {
                Cmp::Eq => self.b.i_equal(t, None, a.id, b.id),
                Cmp::Ne => self.b.i_not_equal(t, None, a.id, b.id),
                Cmp::ULt => self.b.u_less_than(t, None, a.id, b.id),
                Cmp::ULe => self.b.u_less_than_equal(t, None, a.id, b.id),
                Cmp::UGt => self.b.u_greater_than(t, None, a.id, b.id),
                Cmp::UGe => self.b.u_greater_than_equal(t, None, a.id, b.id),
                Cmp::SLt => self.b.s_less_than(t, None, a.id, b.id),
                Cmp::SLe => self.b.s_less_than_equal(t, None, a.id, b.id),
                Cmp::SGt => self.b.s_greater_than(t, None, a.id, b.id),
                Cmp::SGe => self.b.s_greater_than_equal(t, None, a.id, b.id),
            }
        }
        .expect("compare");
        Sv { id, ty: Ty::Bool }
    }
    fn select(&mut self, c: Sv, a: Sv, b: Sv) -> Sv {
        let t = self.t_of(a.ty);
        Sv {
            id: self.b.select(t, None, c.id, a.id, b.id).expect("select"),
            ty: a.ty,
        }
    }
    fn band(&mut self, a: Sv, b: Sv) -> Sv {
        let t = self.t_bool();
        Sv {
            id: self.b.logical_and(t, None, a.id, b.id).expect("and"),
            ty: Ty::Bool,
        }
    }
    fn bor(&mut self, a: Sv, b: Sv) -> Sv {
        let t = self.t_bool();
        Sv {
            id: self.b.logical_or(t, None, a.id, b.id).expect("or"),
            ty: Ty::Bool,
        }
    }
    fn bnot(&mut self, a: Sv) -> Sv {
        let t = self.t_bool();
        Sv {
            id: self.b.logical_not(t, None, a.id).expect("not"),
            ty: Ty::Bool,
        }
    }
    fn zext(&mut self, a: Sv) -> Sv {
        let t = self.t_u64();
        Sv {
            id: self.b.u_convert(t, None, a.id).expect("zext"),
            ty: Ty::I64,
        }
    }
    fn sext(&mut self, a: Sv) -> Sv {
        // OpSConvert on unsigned types sign-extends (SPIR-V: the operand is treated as signed).
        let t = self.t_u64();
        Sv {
            id: self.b.s_convert(t, None, a.id).expect("sext"),
            ty: Ty::I64,
        }
    }
    fn trunc(&mut self, a: Sv) -> Sv {
        let t = self.t_u32();
        Sv {
            id: self.b.u_convert(t, None, a.id).expect("trunc"),
            ty: Ty::I32,
        }
    }
}
