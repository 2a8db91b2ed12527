//! Memory access: loads inline in their lane; stores and read-modify-writes through units, emitted once per
//! module as dispatcher segments that every store or atomic calls (it leaves its request in function
//! variables, jumps to the unit, and the unit jumps back to the instruction's continuation).
//!
//! Why units: every write site costs host compilers (lavapipe's most of all) time that grows with the size
//! of the whole module, so a kernel with tens of stores took minutes to compile when each store carried its
//! own write loop (60 dword stores: 26 s on lavapipe; with the unit 4 s). A call costs two dispatcher
//! iterations; the unit's barriers are what the serial order needs anyway.
//!
//! A request's pieces are already placed by the instruction: a byte offset in guest memory (after the region
//! lookup and its fault) or in LDS (after its range and alignment rules), or [`SKIP`]. The wave's first lane
//! performs every lane's pieces in ascending lane order (piece by piece for the two-address exchanges), as
//! the model does, so same-address writes and atomic return values are exact.
//!
//! Helpers: code that every access repeats (the region lookup, byte reads and writes, buffer addressing,
//! format decoding, the report of a fault) is a SPIR-V function of the module, written once and called per
//! access ([`crate::spv::Emit::call_outlined`], defined by [`define_helpers`]). Host compilers inline it
//! again, so what runs is the same code; the recompiler writes a call of a few words instead of the body
//! (a dwordx4 store went from 1,800 words to 480). A helper reads only its parameters and module-scope
//! variables (the report state is `Private` for that reason).

use crate::compile::Cx;
use crate::layout;
use crate::lower::{Bin, Cmp, Lower, SoftF, Ty};
use crate::sem::atomic::{apply, Rmw};
use crate::sem::float::soft_body;
use crate::spv::{Array, Emit, Sv};
use rspirv::spirv::Word;

/// Pieces one store request carries (dwordx4, ds_write_b128, ds_write2_b64).
pub(crate) const STORE_PIECES: u32 = 4;
/// Pieces one read-modify-write request carries (the two-address exchanges).
pub(crate) const RMW_PIECES: u32 = 2;
/// Exchange words per store piece: its offset and its data.
const PIECE_WORDS: u32 = 2;
/// The offset of a piece that touches nothing (inactive lane, dropped by a range check).
pub(crate) const SKIP: u32 = u32::MAX;
/// Request space: guest memory.
pub(crate) const SPACE_MEM: u32 = 0;
/// Request space: LDS.
pub(crate) const SPACE_LDS: u32 = 1;

/// Exchange words of a read-modify-write lane: piece 0 (offset, data lo/hi, compare lo/hi) then piece 1
/// (offset, data lo/hi). Results replace piece 0's data and piece 1's data.
const RMW_AT: [u32; 2] = [0, 5];
const RMW_D0: [u32; 2] = [1, 6];
const RMW_D1: u32 = 3;

/// The function variables of a request, and the units' segment ids.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Units {
    /// Placed offset of each piece, or SKIP.
    at: [Word; STORE_PIECES as usize],
    /// Store data of each piece (u32), or a read-modify-write's data (u64) and compare value (u64).
    data: [Word; STORE_PIECES as usize],
    d64: [Word; RMW_PIECES as usize],
    c64: Word,
    /// Old values a read-modify-write returns (u64).
    old: [Word; RMW_PIECES as usize],
    /// Bytes per piece: 1, 2 or 4 (stores); 4 or 8 (read-modify-writes).
    bytes: Word,
    /// The operation of a read-modify-write.
    op: Word,
    /// SPACE_MEM or SPACE_LDS.
    space: Word,
    /// The segment to continue at.
    ret: Word,
    /// Segment ids of the units.
    pub store_id: u32,
    pub rmw_id: u32,
    /// Whether an instruction called the store unit, the read-modify-write unit (a unit nobody calls is
    /// not emitted).
    pub store_called: bool,
    pub rmw_called: bool,
    /// The read-modify-write operations called (bit `Rmw as u32`): the unit applies only these.
    pub rmw_ops: u32,
}

impl Units {
    /// Declares the request variables.
    pub(crate) fn new(e: &mut Emit, store_id: u32, rmw_id: u32) -> Units {
        let mut v32 = || e.local(Ty::I32);
        let at = std::array::from_fn(|_| v32());
        let data = std::array::from_fn(|_| v32());
        let bytes = v32();
        let op = v32();
        let space = v32();
        let ret = v32();
        let d64 = std::array::from_fn(|_| e.local(Ty::I64));
        let c64 = e.local(Ty::I64);
        let old = std::array::from_fn(|_| e.local(Ty::I64));
        Units {
            at,
            data,
            d64,
            c64,
            old,
            bytes,
            op,
            space,
            ret,
            store_id,
            rmw_id,
            store_called: false,
            rmw_called: false,
            rmw_ops: 0,
        }
    }
}

/// The guest-memory offset of each piece's `bytes` at its address when it goes, [`SKIP`] otherwise. A piece
/// that goes and lies in no region ends the job with a fault at `pc`: one report for the instruction, the
/// first such piece in order (what a report per piece would record: a lane's first report wins).
pub(crate) fn place_all(cx: &mut Cx, pieces: &[(Sv, Sv)], bytes: u32, pc: usize) -> Vec<Sv> {
    let len = cx.e.k32(bytes);
    place_all_len(cx, pieces, len, pc)
}

/// [`place_all`] for pieces of `len` bytes, a u32 value (a format element's size is V# data).
pub(crate) fn place_all_len(cx: &mut Cx, pieces: &[(Sv, Sv)], len: Sv, pc: usize) -> Vec<Sv> {
    let none = cx.e.k32(u32::MAX);
    let skip = cx.e.k32(SKIP);
    let mut out = Vec::with_capacity(pieces.len());
    let mut bads = Vec::with_capacity(pieces.len());
    for &(addr, go) in pieces {
        let off = locate(cx, addr, len);
        let missing = cx.e.cmp(Cmp::Eq, off, none);
        bads.push((cx.e.band(missing, go), addr));
        out.push(cx.e.select(go, off, skip));
    }
    let (mut any, mut at) = bads[bads.len() - 1];
    for &(bad, addr) in bads.iter().rev().skip(1) {
        any = cx.e.bor(any, bad);
        at = cx.e.select(bad, addr, at);
    }
    let pcv = cx.e.k32(pc as u32);
    let lo = cx.e.trunc(at);
    let hi = cx.e.hi(at);
    cx.report_if(any, layout::FAULT, pcv, lo, hi);
    out
}

/// Loads `bytes` (1, 2 or 4) at each piece's guest address in this lane, inline: a piece that does not `go`
/// reads 0, one outside every region faults the job. (Loads stay in their segment: measured on lavapipe, a
/// call into a unit costs more compile time than the load it replaces.)
pub(crate) fn load(cx: &mut Cx, pieces: &[(Sv, Sv)], bytes: u32, pc: usize) -> Vec<Sv> {
    let len = cx.e.k32(bytes);
    load_len(cx, pieces, len, pc)
}

/// [`load`] of `len` (a u32 value: 1, 2 or 4) bytes per piece.
pub(crate) fn load_len(cx: &mut Cx, pieces: &[(Sv, Sv)], len: Sv, pc: usize) -> Vec<Sv> {
    let at = place_all_len(cx, pieces, len, pc);
    at.into_iter()
        .map(|a| {
            cx.e.call_outlined(Helper::ReadMem.key(), Ty::I32, &[a, len])
        })
        .collect()
}

/// Reads `bytes` (1, 2 or 4) at placed offset `at` of `space`: 0 for [`SKIP`]. A call of the module's
/// read helper of the space ([`read_in`]).
pub(crate) fn read_at(cx: &mut Cx, space: u32, at: Sv, bytes: u32) -> Sv {
    let len = cx.e.k32(bytes);
    let key = if space == SPACE_LDS {
        Helper::ReadLds
    } else {
        Helper::ReadMem
    };
    cx.e.call_outlined(key.key(), Ty::I32, &[at, len])
}

/// The body of a read helper over `arr`: parameters the placed offset (or [`SKIP`]) and the length.
fn read_in(e: &mut Emit, arr: Array, p: &[Sv]) -> Sv {
    let [at, len] = p else {
        panic!("a read takes two parameters")
    };
    let skip = e.k32(SKIP);
    let ok = e.cmp(Cmp::Ne, *at, skip);
    let z = e.k32(0);
    let safe = e.select(ok, *at, z);
    let v = read_bytes(e, arr, safe, *len);
    e.select(ok, v, z)
}

/// Stores each piece (placed offset or [`SKIP`], data) of `bytes` (1, 2 or 4) in `space`, in the store
/// unit. Ends the current segment and continues in a new one, after the writes are visible to every lane.
pub(crate) fn store(cx: &mut Cx, space: u32, pieces: &[(Sv, Sv)], bytes: u32) {
    let len = cx.e.k32(bytes);
    store_len(cx, space, pieces, len);
}

/// [`store`] of `len` (a u32 value: 1, 2 or 4) bytes per piece.
pub(crate) fn store_len(cx: &mut Cx, space: u32, pieces: &[(Sv, Sv)], len: Sv) {
    assert!(
        pieces.len() <= STORE_PIECES as usize,
        "store request too large"
    );
    let u = cx.units;
    let skip = cx.e.k32(SKIP);
    for i in 0..STORE_PIECES as usize {
        let (at, d) = pieces.get(i).copied().unwrap_or((skip, skip));
        cx.put(u.at[i], at);
        cx.put(u.data[i], d);
    }
    cx.units.store_called = true;
    call(cx, u.store_id, len, 0, space);
}

/// Applies `op` to each piece (placed offset or [`SKIP`], data, compare value; 64-bit values, `wide` for
/// 8-byte elements) in `space`, in the read-modify-write unit, and returns each piece's old value (0 for a
/// skipped piece) in the continuation segment.
pub(crate) fn rmw(
    cx: &mut Cx,
    space: u32,
    op: Rmw,
    wide: bool,
    pieces: &[(Sv, Sv, Sv)],
) -> Vec<Sv> {
    assert!(
        pieces.len() <= RMW_PIECES as usize,
        "read-modify-write request too large"
    );
    let u = cx.units;
    let skip = cx.e.k32(SKIP);
    let z = cx.e.k64(0);
    for i in 0..RMW_PIECES as usize {
        let (at, d, c) = pieces.get(i).copied().unwrap_or((skip, z, z));
        cx.put(u.at[i], at);
        cx.e.store(u.d64[i], d);
        if i == 0 {
            cx.e.store(u.c64, c);
        }
    }
    cx.units.rmw_called = true;
    cx.units.rmw_ops |= 1 << op as u32;
    let len = cx.e.k32(if wide { 8 } else { 4 });
    call(cx, u.rmw_id, len, op as u32, space);
    (0..pieces.len())
        .map(|i| cx.e.load(u.old[i], Ty::I64))
        .collect()
}

fn call(cx: &mut Cx, unit: u32, bytes: Sv, op: u32, space: u32) {
    let u = cx.units;
    let ret = cx.new_seg();
    cx.put(u.bytes, bytes);
    for (var, v) in [(u.op, op), (u.space, space), (u.ret, ret)] {
        let k = cx.e.k32(v);
        cx.put(var, k);
    }
    let id = cx.e.k32(unit);
    cx.end_case(id, false);
    cx.begin_case(ret);
}

/// The module's helper functions, by the key [`crate::spv::Emit::call_outlined`] knows them (one list, so
/// that no two share a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Helper {
    /// The region lookup ([`locate_in`]).
    Locate,
    /// A buffer piece's address and range check ([`crate::translate::buffer_piece`]).
    BufferPiece,
    /// The format table of format loads and stores ([`crate::format::info`]).
    FormatInfo,
    /// One DST_SEL output of a format load, 32-bit and d16 ([`crate::format::select_load`]).
    FormatLoad32,
    FormatLoad16,
    /// One component's code of a format store, from a register and from a d16 half
    /// ([`crate::format::store_component`]).
    FormatStore32,
    FormatStore16,
    /// Byte reads of guest memory and LDS ([`read_in`]).
    ReadMem,
    ReadLds,
    /// Byte writes of guest memory and LDS ([`write_in`]).
    WriteMem,
    WriteLds,
    /// A report of the lane ([`crate::compile::report_in`]).
    Report,
    /// The f32 add and multiply slow paths ([`crate::sem::float::soft_body`]).
    SoftAdd32,
    SoftMul32,
}

/// The helper of a [`SoftF`] slow path.
pub(crate) fn soft_helper(op: SoftF) -> Helper {
    match op {
        SoftF::Add32 => Helper::SoftAdd32,
        SoftF::Mul32 => Helper::SoftMul32,
    }
}

impl Helper {
    const ALL: [Helper; 14] = [
        Helper::Locate,
        Helper::BufferPiece,
        Helper::FormatInfo,
        Helper::FormatLoad32,
        Helper::FormatLoad16,
        Helper::FormatStore32,
        Helper::FormatStore16,
        Helper::ReadMem,
        Helper::ReadLds,
        Helper::WriteMem,
        Helper::WriteLds,
        Helper::Report,
        Helper::SoftAdd32,
        Helper::SoftMul32,
    ];

    /// Its key: its place in [`Helper::ALL`].
    pub(crate) fn key(self) -> u32 {
        self as u32
    }
}

/// Defines every helper the module called (after its entry point ended). Helpers are functions of their
/// parameters and the module's globals.
pub(crate) fn define_helpers(cx: &mut Cx) {
    let (regions, mem, lds) = (cx.regions, cx.mem, cx.lds);
    let (rep, seg, yld) = (cx.rep, cx.seg, cx.yld);
    for f in cx.e.take_outlined() {
        let helper = Helper::ALL.get(f.key as usize).copied();
        match helper.unwrap_or_else(|| unreachable!("no helper {}", f.key)) {
            Helper::Locate => cx.e.define(&f, |e, p| locate_in(e, regions, p)),
            Helper::BufferPiece => cx.e.define(&f, crate::translate::buffer_piece),
            Helper::FormatInfo => cx.e.define(&f, |e, p| crate::format::info(e, p[0])),
            Helper::FormatLoad32 => {
                cx.e.define(&f, |e, p| crate::memfmt::load_body(e, p, false))
            }
            Helper::FormatLoad16 => cx.e.define(&f, |e, p| crate::memfmt::load_body(e, p, true)),
            Helper::FormatStore32 => {
                cx.e.define(&f, |e, p| crate::memfmt::store_body(e, p, false))
            }
            Helper::FormatStore16 => {
                cx.e.define(&f, |e, p| crate::memfmt::store_body(e, p, true))
            }
            Helper::ReadMem => cx.e.define(&f, |e, p| read_in(e, mem, p)),
            Helper::ReadLds => cx.e.define(&f, |e, p| read_in(e, lds, p)),
            Helper::WriteMem => cx.e.define(&f, |e, p| write_in(e, mem, p)),
            Helper::WriteLds => cx.e.define(&f, |e, p| write_in(e, lds, p)),
            Helper::Report => {
                cx.e.define(&f, |e, p| crate::compile::report_in(e, rep, seg, yld, p))
            }
            Helper::SoftAdd32 => cx.e.define(&f, |e, p| soft_body(e, SoftF::Add32, p)),
            Helper::SoftMul32 => cx.e.define(&f, |e, p| soft_body(e, SoftF::Mul32, p)),
        }
    }
}

/// The guest-memory offset of the `len` bytes at `addr`, all ones when no region holds them wholly: a call
/// of the module's [`locate_in`] helper (every load and store piece needs one).
pub(crate) fn locate(cx: &mut Cx, addr: Sv, len: Sv) -> Sv {
    cx.e.call_outlined(Helper::Locate.key(), Ty::I32, &[addr, len])
}

/// The body of the region-lookup helper over the launch's `regions`: parameters `addr` (u64) and `len`
/// (u32).
pub(crate) fn locate_in(e: &mut Emit, regions: &[crate::Region], p: &[Sv]) -> Sv {
    let [addr, len] = p else {
        panic!("locate takes two parameters")
    };
    let (addr, len) = (*addr, *len);
    let mut cur = e.k32(u32::MAX);
    let l64 = e.zext(len);
    let a_end = e.bin(Bin::Add, addr, l64);
    // addr + len must not wrap.
    let nowrap = e.cmp(Cmp::UGe, a_end, addr);
    // Unrolled over the launch's regions, which are constants: a few compares each, and no loop that could
    // count against a host loop limit.
    for r in regions {
        let start = e.k64(r.base);
        let end = e.k64(r.base + r.bytes as u64);
        let ge = e.cmp(Cmp::UGe, addr, start);
        let le = e.cmp(Cmp::ULe, a_end, end);
        let inside = e.band(ge, le);
        let inside = e.band(inside, nowrap);
        let rel = e.bin(Bin::Sub, addr, start);
        let rel = e.trunc(rel);
        let at = e.bink(Bin::Add, rel, r.offset as u64);
        cur = e.select(inside, at, cur);
    }
    cur
}

/// The mask of the low `len` (1, 2 or 4) bytes, 64-bit.
fn byte_mask(e: &mut Emit, len: Sv) -> Sv {
    let bits = e.bink(Bin::Mul, len, 8);
    let bits = e.zext(bits);
    let one = e.k64(1);
    let m = e.bin(Bin::Shl, one, bits);
    e.bink(Bin::Sub, m, 1)
}

/// The two dwords of `arr` that bytes from offset `off` on can touch: their pointers, their value (64-bit) and
/// the bit shift of `off` inside it (64-bit).
fn dword_pair(e: &mut Emit, arr: Array, off: Sv) -> ((Word, Word), Sv, Sv) {
    let w = e.bink(Bin::LShr, off, 2);
    let sh = e.bink(Bin::And, off, 3);
    let sh = e.bink(Bin::Mul, sh, 8);
    let sh64 = e.zext(sh);
    let w1 = e.bink(Bin::Add, w, 1);
    let p0 = e.elem(arr, w.id);
    let p1 = e.elem(arr, w1.id);
    let lo = e.load32(p0);
    let hi = e.load32(p1);
    ((p0, p1), e.pack(lo, hi), sh64)
}

/// Reads `len` (1, 2 or 4) bytes at byte offset `off` of `arr`, little-endian, any alignment (the arrays
/// have a dword of slack at the end).
pub(crate) fn read_bytes(e: &mut Emit, arr: Array, off: Sv, len: Sv) -> Sv {
    let (_, both, sh64) = dword_pair(e, arr, off);
    let v = e.bin(Bin::LShr, both, sh64);
    let m = byte_mask(e, len);
    let v = e.bin(Bin::And, v, m);
    e.trunc(v)
}

/// Writes the low `len` (1, 2 or 4) bytes of `v` at byte offset `off` of the array of `space` when `cond`,
/// any alignment: a call of the module's write helper of the space ([`write_in`]).
fn write_bytes(e: &mut Emit, space: u32, cond: Sv, off: Sv, len: Sv, v: Sv) {
    let key = if space == SPACE_LDS {
        Helper::WriteLds
    } else {
        Helper::WriteMem
    };
    e.call_outlined(key.key(), Ty::I32, &[cond, off, len, v]);
}

/// The body of a write helper over `arr` (parameters cond, off, len, v of [`write_bytes`]): one
/// read-modify-write of the two dwords the bytes can touch (the second rewritten with its own value when
/// untouched: no branch, and only one lane writes at a time). Returns the first dword's new value (a
/// function returns a value here; callers drop it).
fn write_in(e: &mut Emit, arr: Array, p: &[Sv]) -> Sv {
    let [cond, off, len, v] = p else {
        panic!("a write takes four parameters")
    };
    let (cond, off, len, v) = (*cond, *off, *len, *v);
    let z = e.k32(0);
    let off = e.select(cond, off, z);
    let ((p0, p1), old, sh64) = dword_pair(e, arr, off);
    let ones = byte_mask(e, len);
    let m = e.bin(Bin::Shl, ones, sh64);
    let val = e.zext(v);
    let val = e.bin(Bin::And, val, ones);
    let val = e.bin(Bin::Shl, val, sh64);
    let nm = e.un(crate::lower::Un::Not, m);
    let kept = e.bin(Bin::And, old, nm);
    let new = e.bin(Bin::Or, kept, val);
    let new = e.select(cond, new, old);
    let nlo = e.trunc(new);
    let nhi = e.hi(new);
    e.store(p0, nlo);
    e.store(p1, nhi);
    nlo
}

/// The word index of exchange word `w` of lane `l` in the slot starting at `base`.
fn xw(e: &mut Emit, base: Sv, l: Sv, w: u32) -> Sv {
    let lw = e.bink(Bin::Mul, l, crate::compile::XW as u64);
    let lw = e.bin(Bin::Add, base, lw);
    e.bink(Bin::Add, lw, w as u64)
}

/// Emits the store unit's segments: each lane publishes its pieces, the wave's first lane writes every
/// lane's in lane order after a barrier, and a second barrier makes the writes visible to every lane before
/// the wave goes on.
pub(crate) fn emit_store_unit(cx: &mut Cx) {
    let u = cx.units;
    cx.begin_case(u.store_id);
    for i in 0..STORE_PIECES as usize {
        let at = cx.get(u.at[i]);
        cx.publish(PIECE_WORDS * i as u32, at);
        let d = cx.get(u.data[i]);
        cx.publish(PIECE_WORDS * i as u32 + 1, d);
    }
    cx.cut();
    // Values of the segment before the cut are gone: read the request again.
    let bytes = cx.get(u.bytes);
    let space = cx.get(u.space);
    let lane0 = cx.e.k32(0);
    let leader = cx.e.cmp(Cmp::Eq, cx.lane, lane0);
    let lanes = cx.shape.wave;
    let base = cx.slot_word(0);
    let xch = cx.xch;
    let has_lds = cx.shape.lds_bytes > 0;
    cx.e.if_then(leader, |e| {
        let k = e.k32(lanes);
        let lds_space = e.k32(SPACE_LDS);
        let to_lds = e.cmp(Cmp::Eq, space, lds_space);
        let to_mem = e.bnot(to_lds);
        e.for_range(k, |e, l| {
            for i in 0..STORE_PIECES {
                let ia = xw(e, base, l, PIECE_WORDS * i);
                let pa = e.elem(xch, ia.id);
                let at = e.load32(pa);
                let id = e.bink(Bin::Add, ia, 1);
                let pd = e.elem(xch, id.id);
                let d = e.load32(pd);
                let skip = e.k32(SKIP);
                let go = e.cmp(Cmp::Ne, at, skip);
                let gm = e.band(go, to_mem);
                write_bytes(e, SPACE_MEM, gm, at, bytes, d);
                if has_lds {
                    let gl = e.band(go, to_lds);
                    write_bytes(e, SPACE_LDS, gl, at, bytes, d);
                }
            }
        });
    });
    cx.cut();
    cx.next_slot();
    let r = cx.get(u.ret);
    cx.end_case(r, false);
}

/// Every read-modify-write the unit can apply, in the order of their ids.
const RMWS: [Rmw; 27] = [
    Rmw::Add,
    Rmw::Sub,
    Rmw::Rsub,
    Rmw::Csub,
    Rmw::Inc,
    Rmw::Dec,
    Rmw::SMin,
    Rmw::SMax,
    Rmw::UMin,
    Rmw::UMax,
    Rmw::And,
    Rmw::Or,
    Rmw::Xor,
    Rmw::Mskor,
    Rmw::Swap,
    Rmw::CmpSt,
    Rmw::CmpSwap,
    Rmw::Wrap,
    Rmw::FMin,
    Rmw::FMax,
    Rmw::FCmpSt,
    Rmw::FAdd,
    Rmw::FCmpSwap,
    Rmw::FMin64,
    Rmw::FMax64,
    Rmw::FCmpSt64,
    Rmw::FCmpSwap64,
];

/// The new value of `op` (a dynamic id, `Rmw as u32`, one of the set `ops`) at 32 or 64 bits (`wide`), from
/// 64-bit operands; `mode` is the MODE register value the float operations read.
#[allow(clippy::too_many_arguments)]
fn apply_dyn(e: &mut Emit, ops: u32, op: Sv, wide: Sv, old: Sv, d0: Sv, d1: Sv, mode: Sv) -> Sv {
    let (o32, a32, b32) = (e.trunc(old), e.trunc(d0), e.trunc(d1));
    let mut r = old;
    for &k in RMWS.iter().filter(|&&k| ops >> k as u32 & 1 == 1) {
        let n = if k.is_float64() {
            apply(e, k, old, d0, d1, mode)
        } else {
            let n32 = apply(e, k, o32, a32, b32, mode);
            let n32 = e.zext(n32);
            if k.is_float() {
                n32
            } else {
                let n64 = apply(e, k, old, d0, d1, mode);
                e.select(wide, n64, n32)
            }
        };
        let id = e.k32(k as u32);
        let is = e.cmp(Cmp::Eq, op, id);
        r = e.select(is, n, r);
    }
    r
}

/// Emits the read-modify-write unit's segments: each lane publishes its pieces; after a barrier the wave's
/// first lane applies them piece by piece, lanes in ascending order within each, leaving every old value in
/// its lane's words; after another barrier each lane takes its old values.
pub(crate) fn emit_rmw_unit(cx: &mut Cx) {
    let u = cx.units;
    cx.begin_case(u.rmw_id);
    for k in 0..RMW_PIECES as usize {
        let at = cx.get(u.at[k]);
        cx.publish(RMW_AT[k], at);
        let d = cx.e.load(u.d64[k], Ty::I64);
        let (lo, hi) = (cx.e.trunc(d), cx.e.hi(d));
        cx.publish(RMW_D0[k], lo);
        cx.publish(RMW_D0[k] + 1, hi);
    }
    let c = cx.e.load(u.c64, Ty::I64);
    let (lo, hi) = (cx.e.trunc(c), cx.e.hi(c));
    cx.publish(RMW_D1, lo);
    cx.publish(RMW_D1 + 1, hi);
    cx.cut();
    let bytes = cx.get(u.bytes);
    let op = cx.get(u.op);
    let space = cx.get(u.space);
    let lane0 = cx.e.k32(0);
    let leader = cx.e.cmp(Cmp::Eq, cx.lane, lane0);
    let lanes = cx.shape.wave;
    let base = cx.slot_word(0);
    let xch = cx.xch;
    let (mem, lds) = (cx.mem, cx.lds);
    let has_lds = cx.shape.lds_bytes > 0;
    let ops = cx.units.rmw_ops;
    let mode = cx.mode_word();
    cx.e.if_then(leader, |e| {
        let k8 = e.k32(8);
        let wide = e.cmp(Cmp::Eq, bytes, k8);
        let lds_space = e.k32(SPACE_LDS);
        let to_lds = e.cmp(Cmp::Eq, space, lds_space);
        let to_mem = e.bnot(to_lds);
        let four = e.k32(4);
        let lanes_k = e.k32(lanes);
        for k in 0..RMW_PIECES as usize {
            e.for_range(lanes_k, |e, l| {
                let word = |e: &mut Emit, w: u32| {
                    let i = xw(e, base, l, w);
                    let p = e.elem(xch, i.id);
                    (p, e.load32(p))
                };
                let (_, at) = word(e, RMW_AT[k]);
                let (p_lo, d_lo) = word(e, RMW_D0[k]);
                let (p_hi, d_hi) = word(e, RMW_D0[k] + 1);
                let (_, c_lo) = word(e, RMW_D1);
                let (_, c_hi) = word(e, RMW_D1 + 1);
                let skip = e.k32(SKIP);
                let go = e.cmp(Cmp::Ne, at, skip);
                let z = e.k32(0);
                let safe = e.select(go, at, z);
                let hi_at = e.bink(Bin::Add, safe, 4);
                // The old value: from the space written to (both read; the other is ignored).
                let read = |e: &mut Emit, arr: Array| {
                    let lo = read_bytes(e, arr, safe, four);
                    let hi = read_bytes(e, arr, hi_at, four);
                    e.pack(lo, hi)
                };
                let old_mem = read(e, mem);
                let old = if has_lds {
                    let old_lds = read(e, lds);
                    e.select(to_lds, old_lds, old_mem)
                } else {
                    old_mem
                };
                let z64 = e.k64(0);
                let hi_mask = e.k64(u32::MAX as u64);
                let lo32 = e.bin(Bin::And, old, hi_mask);
                let old = e.select(wide, old, lo32);
                let old = e.select(go, old, z64);
                let d0 = e.pack(d_lo, d_hi);
                let d1 = e.pack(c_lo, c_hi);
                let new = apply_dyn(e, ops, op, wide, old, d0, d1, mode);
                let (n_lo, n_hi) = (e.trunc(new), e.hi(new));
                let gm = e.band(go, to_mem);
                write_bytes(e, SPACE_MEM, gm, safe, four, n_lo);
                let gm_hi = e.band(gm, wide);
                write_bytes(e, SPACE_MEM, gm_hi, hi_at, four, n_hi);
                if has_lds {
                    let gl = e.band(go, to_lds);
                    write_bytes(e, SPACE_LDS, gl, safe, four, n_lo);
                    let gl_hi = e.band(gl, wide);
                    write_bytes(e, SPACE_LDS, gl_hi, hi_at, four, n_hi);
                }
                // The old value replaces this piece's data in the lane's words.
                let (o_lo, o_hi) = (e.trunc(old), e.hi(old));
                e.store(p_lo, o_lo);
                e.store(p_hi, o_hi);
            });
        }
    });
    cx.cut();
    for (&w, &var) in RMW_D0.iter().zip(&u.old) {
        let lo = cx.fetch(cx.lane, w);
        let hi = cx.fetch(cx.lane, w + 1);
        let v = cx.e.pack(lo, hi);
        cx.e.store(var, v);
    }
    cx.next_slot();
    let r = cx.get(u.ret);
    cx.end_case(r, false);
}

#[cfg(test)]
mod tests {
    use super::Helper;

    #[test]
    fn every_helper_is_found_by_its_key() {
        for (i, h) in Helper::ALL.iter().enumerate() {
            assert_eq!(h.key() as usize, i, "{h:?}");
        }
    }
}
