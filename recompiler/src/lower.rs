//! The operations instruction semantics are written in, once, for two backends: [`Eval`] computes them on the
//! CPU (tests compare it with the reference model), the SPIR-V emitter ([`crate::spv`]) emits them.
//!
//! Every operation is total and defined for every input: shifts take their amount modulo the width (the
//! caller never relies on a shift by the width or more, which SPIR-V leaves undefined), comparisons and
//! selects are plain, division does not exist. Values are booleans or 32/64-bit integers; an operation's
//! operands have the same width unless its name says otherwise.

/// A value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A boolean.
    Bool,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
}

/// Two-operand integer operations (operands and result of one width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Wrapping multiply (low half).
    Mul,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
    /// Left shift by the second operand modulo the width.
    Shl,
    /// Logical right shift by the second operand modulo the width.
    LShr,
    /// Arithmetic right shift by the second operand modulo the width.
    AShr,
}

/// Integer comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Unsigned less than.
    ULt,
    /// Unsigned less or equal.
    ULe,
    /// Unsigned greater than.
    UGt,
    /// Unsigned greater or equal.
    UGe,
    /// Signed less than.
    SLt,
    /// Signed less or equal.
    SLe,
    /// Signed greater than.
    SGt,
    /// Signed greater or equal.
    SGe,
}

/// One-operand integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    /// Bitwise not.
    Not,
    /// Bit reversal.
    BitRev,
    /// Number of set bits (the result has the operand's width).
    BitCount,
    /// Index of the lowest set bit, all ones when there is none (result 32-bit).
    FindLsb,
    /// Index of the highest set bit, all ones when there is none (result 32-bit).
    FindMsb,
}

/// Host f32 operations on bit patterns (in a u32), rounded to nearest even. The float engine uses a
/// result only where its guards make it exact whatever the host does with denormals and NaNs
/// ([`crate::sem::float`], "Host fast paths").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostF {
    /// f32 `a + b`.
    Add32,
    /// f32 `a * b`.
    Mul32,
}

/// [`Lower::repeat`] unrolled: `body` called `n` times with constant indices.
pub fn unrolled<L: Lower>(
    e: &mut L,
    n: u32,
    state: &[L::V],
    mut body: impl FnMut(&mut L, L::V, &[L::V]) -> Vec<L::V>,
) -> Vec<L::V> {
    let mut s = state.to_vec();
    for i in 0..n {
        let iv = e.k32(i);
        s = body(e, iv, &s);
        debug_assert_eq!(s.len(), state.len(), "a step keeps the state's shape");
    }
    s
}

/// Integer-engine float operations a backend may emit once per module and call ([`Lower::soft`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftF {
    /// f32 add: parameters `a`, `b`, round field, keep-denormal-inputs, keep-denormal-results, IEEE_MODE.
    Add32,
    /// f32 multiply, the same parameters.
    Mul32,
}

/// The operations semantics are written with.
pub trait Lower {
    /// A value of the backend.
    type V: Copy;
    /// The type of `v`.
    fn ty(&self, v: Self::V) -> Ty;
    /// A 32-bit constant.
    fn k32(&mut self, v: u32) -> Self::V;
    /// A 64-bit constant.
    fn k64(&mut self, v: u64) -> Self::V;
    /// A boolean constant.
    fn kbool(&mut self, b: bool) -> Self::V;
    /// `a op b`.
    fn bin(&mut self, op: Bin, a: Self::V, b: Self::V) -> Self::V;
    /// `op a`.
    fn un(&mut self, op: Un, a: Self::V) -> Self::V;
    /// `a cmp b` (a boolean).
    fn cmp(&mut self, c: Cmp, a: Self::V, b: Self::V) -> Self::V;
    /// `c ? a : b` (`a`, `b` of one type).
    fn select(&mut self, c: Self::V, a: Self::V, b: Self::V) -> Self::V;
    /// Boolean and, or, not.
    fn band(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// Boolean or.
    fn bor(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// Boolean not.
    fn bnot(&mut self, a: Self::V) -> Self::V;
    /// Zero-extends a 32-bit value to 64 bits.
    fn zext(&mut self, a: Self::V) -> Self::V;
    /// Sign-extends a 32-bit value to 64 bits.
    fn sext(&mut self, a: Self::V) -> Self::V;
    /// The low 32 bits of a 64-bit value.
    fn trunc(&mut self, a: Self::V) -> Self::V;
    /// Whether [`Lower::host`] may stand in for the integer engine under its guards (the SPIR-V module
    /// then declares round-to-nearest-even float controls for f32). False unless the backend says so.
    fn host_floats(&self) -> bool {
        false
    }
    /// Host float operation `op` on bit patterns `args`; called only when [`Lower::host_floats`] holds.
    fn host(&mut self, op: HostF, args: &[Self::V]) -> Self::V;
    /// `c ? fast : slow()`, where the backend may skip computing `slow` when `c` holds (the SPIR-V emitter
    /// branches around it).
    fn unless(
        &mut self,
        c: Self::V,
        fast: Self::V,
        slow: impl FnOnce(&mut Self) -> Self::V,
    ) -> Self::V
    where
        Self: Sized,
    {
        let s = slow(self);
        self.select(c, fast, s)
    }

    /// `body(args)`, the integer engine's `op`; a backend may emit it once as a function of `args` and
    /// call it (the SPIR-V emitter does, so a module holds one copy of each slow path).
    fn soft(
        &mut self,
        op: SoftF,
        args: &[Self::V],
        body: impl FnOnce(&mut Self, &[Self::V]) -> Self::V,
    ) -> Self::V
    where
        Self: Sized,
    {
        let _ = op;
        body(self, args)
    }

    /// `body` applied `n` times to `state`, each time with the step's index (a 32-bit value from 0): the
    /// last state. Unrolled here; the SPIR-V emitter may emit a loop instead (`Emit::rolled_loops`), so
    /// the body must use the index as a value (arithmetic, [`Lower::table64`]), never as a Rust number.
    fn repeat(
        &mut self,
        n: u32,
        state: &[Self::V],
        body: impl FnMut(&mut Self, Self::V, &[Self::V]) -> Vec<Self::V>,
    ) -> Vec<Self::V>
    where
        Self: Sized,
    {
        unrolled(self, n, state, body)
    }

    // Derived operations, the same on every backend.

    /// `table[i]` for a 32-bit index `i` below the table's length: a select chain, which folds to the
    /// constant when `i` is one.
    fn table64(&mut self, table: &[u64], i: Self::V) -> Self::V {
        let mut v = self.k64(table[0]);
        for (j, &t) in table.iter().enumerate().skip(1) {
            let jk = self.k32(j as u32);
            let at = self.cmp(Cmp::Eq, i, jk);
            let tk = self.k64(t);
            v = self.select(at, tk, v);
        }
        v
    }

    /// The high 32 bits of a 64-bit value.
    fn hi(&mut self, a: Self::V) -> Self::V {
        let k = self.k64(32);
        let s = self.bin(Bin::LShr, a, k);
        self.trunc(s)
    }
    /// `lo | hi << 32`.
    fn pack(&mut self, lo: Self::V, hi: Self::V) -> Self::V {
        let l = self.zext(lo);
        let h = self.zext(hi);
        let k = self.k64(32);
        let h = self.bin(Bin::Shl, h, k);
        self.bin(Bin::Or, l, h)
    }
    /// Boolean exclusive or.
    fn bxor(&mut self, a: Self::V, b: Self::V) -> Self::V {
        let na = self.bnot(a);
        let nb = self.bnot(b);
        let x = self.band(a, nb);
        let y = self.band(na, b);
        self.bor(x, y)
    }
    /// A boolean as 0 or 1 of type `ty`.
    fn b2i(&mut self, b: Self::V, ty: Ty) -> Self::V {
        let (one, zero) = match ty {
            Ty::I64 => (self.k64(1), self.k64(0)),
            _ => (self.k32(1), self.k32(0)),
        };
        self.select(b, one, zero)
    }
    /// `a != 0`.
    fn nz(&mut self, a: Self::V) -> Self::V {
        let z = self.zero_like(a);
        self.cmp(Cmp::Ne, a, z)
    }
    /// A zero of `a`'s width.
    fn zero_like(&mut self, a: Self::V) -> Self::V {
        match self.ty(a) {
            Ty::I64 => self.k64(0),
            Ty::Bool => self.kbool(false),
            Ty::I32 => self.k32(0),
        }
    }
    /// A constant of `a`'s width.
    fn k_like(&mut self, a: Self::V, v: u64) -> Self::V {
        match self.ty(a) {
            Ty::I64 => self.k64(v),
            _ => self.k32(v as u32),
        }
    }
    /// `a op k` with a constant of `a`'s width.
    fn bink(&mut self, op: Bin, a: Self::V, k: u64) -> Self::V {
        let k = self.k_like(a, k);
        self.bin(op, a, k)
    }
    /// Bits `[off, off + width)` of `a`, zero-extended (`width` constant in 1..=bits).
    fn field(&mut self, a: Self::V, off: u32, width: u32) -> Self::V {
        let bits = if self.ty(a) == Ty::I64 { 64 } else { 32 };
        let s = self.bink(Bin::LShr, a, off as u64);
        if width >= bits {
            s
        } else {
            self.bink(Bin::And, s, (1u64 << width) - 1)
        }
    }
    /// Sign-extends the low `width` bits of `a` within its own width.
    fn sext_in(&mut self, a: Self::V, width: u32) -> Self::V {
        let bits = if self.ty(a) == Ty::I64 { 64 } else { 32 };
        if width >= bits {
            return a;
        }
        let l = self.bink(Bin::Shl, a, (bits - width) as u64);
        self.bink(Bin::AShr, l, (bits - width) as u64)
    }
}

/// A value of the CPU evaluator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    /// A boolean.
    B(bool),
    /// A 32-bit integer.
    W(u32),
    /// A 64-bit integer.
    D(u64),
}

impl Val {
    /// The value as a u64 (booleans 0/1).
    pub fn u(self) -> u64 {
        match self {
            Val::B(b) => b as u64,
            Val::W(w) => w as u64,
            Val::D(d) => d,
        }
    }

    /// The boolean (a mismatched type is a semantics bug, reported as false in release builds).
    pub fn b(self) -> bool {
        debug_assert!(matches!(self, Val::B(_)), "not a boolean: {self:?}");
        matches!(self, Val::B(true))
    }
}

/// The CPU evaluator of [`Lower`]: every operation computed at once.
#[derive(Debug, Default, Clone, Copy)]
pub struct Eval;

impl Lower for Eval {
    type V = Val;

    fn ty(&self, v: Val) -> Ty {
        match v {
            Val::B(_) => Ty::Bool,
            Val::W(_) => Ty::I32,
            Val::D(_) => Ty::I64,
        }
    }
    fn k32(&mut self, v: u32) -> Val {
        Val::W(v)
    }
    fn k64(&mut self, v: u64) -> Val {
        Val::D(v)
    }
    fn kbool(&mut self, b: bool) -> Val {
        Val::B(b)
    }
    fn bin(&mut self, op: Bin, a: Val, b: Val) -> Val {
        match (a, b) {
            (Val::W(a), Val::W(b)) => Val::W(match op {
                Bin::Add => a.wrapping_add(b),
                Bin::Sub => a.wrapping_sub(b),
                Bin::Mul => a.wrapping_mul(b),
                Bin::And => a & b,
                Bin::Or => a | b,
                Bin::Xor => a ^ b,
                Bin::UMin => a.min(b),
                Bin::UMax => a.max(b),
                Bin::SMin => (a as i32).min(b as i32) as u32,
                Bin::SMax => (a as i32).max(b as i32) as u32,
                Bin::Shl => a << (b & 31),
                Bin::LShr => a >> (b & 31),
                Bin::AShr => ((a as i32) >> (b & 31)) as u32,
            }),
            (Val::D(a), Val::D(b)) => Val::D(match op {
                Bin::Add => a.wrapping_add(b),
                Bin::Sub => a.wrapping_sub(b),
                Bin::Mul => a.wrapping_mul(b),
                Bin::And => a & b,
                Bin::Or => a | b,
                Bin::Xor => a ^ b,
                Bin::UMin => a.min(b),
                Bin::UMax => a.max(b),
                Bin::SMin => (a as i64).min(b as i64) as u64,
                Bin::SMax => (a as i64).max(b as i64) as u64,
                Bin::Shl => a << (b & 63),
                Bin::LShr => a >> (b & 63),
                Bin::AShr => ((a as i64) >> (b & 63)) as u64,
            }),
            _ => {
                debug_assert!(false, "{op:?} of {a:?} and {b:?}");
                Val::W(0)
            }
        }
    }
    fn un(&mut self, op: Un, a: Val) -> Val {
        let find = |v: u64, bits: u32, msb: bool| -> Val {
            if v == 0 {
                Val::W(u32::MAX)
            } else if msb {
                Val::W(63 - v.leading_zeros() - (64 - bits))
            } else {
                Val::W(v.trailing_zeros())
            }
        };
        match (op, a) {
            (Un::Not, Val::W(v)) => Val::W(!v),
            (Un::Not, Val::D(v)) => Val::D(!v),
            (Un::BitRev, Val::W(v)) => Val::W(v.reverse_bits()),
            (Un::BitRev, Val::D(v)) => Val::D(v.reverse_bits()),
            (Un::BitCount, Val::W(v)) => Val::W(v.count_ones()),
            (Un::BitCount, Val::D(v)) => Val::D(v.count_ones() as u64),
            (Un::FindLsb, Val::W(v)) => find(v as u64, 32, false),
            (Un::FindLsb, Val::D(v)) => find(v, 64, false),
            (Un::FindMsb, Val::W(v)) => {
                if v == 0 {
                    Val::W(u32::MAX)
                } else {
                    Val::W(31 - v.leading_zeros())
                }
            }
            (Un::FindMsb, Val::D(v)) => find(v, 64, true),
            _ => {
                debug_assert!(false, "{op:?} of {a:?}");
                Val::W(0)
            }
        }
    }
    fn cmp(&mut self, c: Cmp, a: Val, b: Val) -> Val {
        let (x, y, sx, sy) = match (a, b) {
            (Val::W(a), Val::W(b)) => (a as u64, b as u64, a as i32 as i64, b as i32 as i64),
            (Val::D(a), Val::D(b)) => (a, b, a as i64, b as i64),
            (Val::B(a), Val::B(b)) => (a as u64, b as u64, a as i64, b as i64),
            _ => {
                debug_assert!(false, "{c:?} of {a:?} and {b:?}");
                (0, 0, 0, 0)
            }
        };
        Val::B(match c {
            Cmp::Eq => x == y,
            Cmp::Ne => x != y,
            Cmp::ULt => x < y,
            Cmp::ULe => x <= y,
            Cmp::UGt => x > y,
            Cmp::UGe => x >= y,
            Cmp::SLt => sx < sy,
            Cmp::SLe => sx <= sy,
            Cmp::SGt => sx > sy,
            Cmp::SGe => sx >= sy,
        })
    }
    fn select(&mut self, c: Val, a: Val, b: Val) -> Val {
        if c.b() {
            a
        } else {
            b
        }
    }
    fn band(&mut self, a: Val, b: Val) -> Val {
        Val::B(a.b() && b.b())
    }
    fn bor(&mut self, a: Val, b: Val) -> Val {
        Val::B(a.b() || b.b())
    }
    fn bnot(&mut self, a: Val) -> Val {
        Val::B(!a.b())
    }
    fn zext(&mut self, a: Val) -> Val {
        Val::D(a.u() & 0xffff_ffff)
    }
    fn sext(&mut self, a: Val) -> Val {
        Val::D(a.u() as u32 as i32 as i64 as u64)
    }
    fn trunc(&mut self, a: Val) -> Val {
        Val::W(a.u() as u32)
    }
    fn host(&mut self, op: HostF, args: &[Val]) -> Val {
        host_flushing(op, args)
    }
}

/// [`HostF`] as the least helpful host the Vulkan specification allows: correctly rounded to nearest
/// even, every denormal input and result flushed to a signed zero, NaN bits as the CPU leaves them.
fn host_flushing(op: HostF, args: &[Val]) -> Val {
    fn f32_in(v: Val) -> f32 {
        let x = f32::from_bits(v.u() as u32);
        if x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    }
    fn f32_out(x: f32) -> Val {
        let x = if x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        };
        Val::W(x.to_bits())
    }
    match op {
        HostF::Add32 => f32_out(f32_in(args[0]) + f32_in(args[1])),
        HostF::Mul32 => f32_out(f32_in(args[0]) * f32_in(args[1])),
    }
}

/// [`Eval`] with host float operations on ([`Lower::host_floats`]), computed as the least helpful
/// Vulkan host would ([`HostF`]): what the guards of the float engine are tested against. Counts the
/// host results taken and refused, so a test can tell that it reached both paths.
#[derive(Debug, Default, Clone, Copy)]
pub struct HostEval {
    /// [`Lower::unless`] calls that kept the host result.
    pub fast: u64,
    /// [`Lower::unless`] calls that computed the integer engine's.
    pub slow: u64,
}

impl Lower for HostEval {
    type V = Val;

    fn ty(&self, v: Val) -> Ty {
        Eval.ty(v)
    }
    fn k32(&mut self, v: u32) -> Val {
        Val::W(v)
    }
    fn k64(&mut self, v: u64) -> Val {
        Val::D(v)
    }
    fn kbool(&mut self, b: bool) -> Val {
        Val::B(b)
    }
    fn bin(&mut self, op: Bin, a: Val, b: Val) -> Val {
        Eval.bin(op, a, b)
    }
    fn un(&mut self, op: Un, a: Val) -> Val {
        Eval.un(op, a)
    }
    fn cmp(&mut self, c: Cmp, a: Val, b: Val) -> Val {
        Eval.cmp(c, a, b)
    }
    fn select(&mut self, c: Val, a: Val, b: Val) -> Val {
        Eval.select(c, a, b)
    }
    fn band(&mut self, a: Val, b: Val) -> Val {
        Eval.band(a, b)
    }
    fn bor(&mut self, a: Val, b: Val) -> Val {
        Eval.bor(a, b)
    }
    fn bnot(&mut self, a: Val) -> Val {
        Eval.bnot(a)
    }
    fn zext(&mut self, a: Val) -> Val {
        Eval.zext(a)
    }
    fn sext(&mut self, a: Val) -> Val {
        Eval.sext(a)
    }
    fn trunc(&mut self, a: Val) -> Val {
        Eval.trunc(a)
    }
    fn host_floats(&self) -> bool {
        true
    }
    fn host(&mut self, op: HostF, args: &[Val]) -> Val {
        host_flushing(op, args)
    }
    fn unless(&mut self, c: Val, fast: Val, slow: impl FnOnce(&mut Self) -> Val) -> Val {
        if c.b() {
            self.fast += 1;
            fast
        } else {
            self.slow += 1;
            slow(self)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_operations() {
        let mut e = Eval;
        let a = e.k32(0xdead_beef);
        assert_eq!(e.field(a, 8, 8), Val::W(0xbe));
        assert_eq!(e.sext_in(a, 8), Val::W(0xffff_ffef));
        let lo = e.k32(1);
        let hi = e.k32(2);
        let p = e.pack(lo, hi);
        assert_eq!(p, Val::D(0x2_0000_0001));
        assert_eq!(e.hi(p), Val::W(2));
        let z = e.k32(0);
        assert_eq!(e.un(Un::FindMsb, z), Val::W(u32::MAX));
        let d = e.k64(1 << 40);
        assert_eq!(e.un(Un::FindMsb, d), Val::W(40));
        assert_eq!(e.un(Un::FindLsb, d), Val::W(40));
    }
}
