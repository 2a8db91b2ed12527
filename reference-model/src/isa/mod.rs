//! gfx10 (RDNA 1/2) instruction decoding and LLVM-syntax disassembly for gfx1013 (PS5) and gfx1030.
//!
//! One [`Instruction`] per encoded instruction: an [`Op`] (one variant per operation, whatever encoding form it
//! came in), the [`Encoding`] family and [`Form`] (E32, E64, DPP16, DPP8, SDWA), typed operands in LLVM's
//! printing order ([`Instruction::operands`], each a [`Slot`] with its [`Role`], decoded [`Operand`] and the raw
//! field), the VOP3/VOP3P modifiers ([`VopMods`]) and the encoding's controls ([`Control`]: DPP16, DPP8, SDWA,
//! simm16, memory/image/export fields). `Display` prints exactly what `llvm-mc --disassemble` (LLVM 19) prints
//! after the tab.
//!
//! ```
//! use reference_model::isa::{self, Op, Operand, Role, Target};
//!
//! // v_add_f32_e32 v1, 4, v0 ; s_endpgm
//! let words = [0x0602_0084, 0xbf81_0000];
//! let i = isa::decode(Target::Gfx1013, &words, 0).unwrap();
//! assert_eq!(i.to_string(), "v_add_f32_e32 v1, 4, v0");
//! match i.op {
//!     Op::VAddF32 => {
//!         assert_eq!(i.operand(Role::Src0), Some(Operand::InlineInt(4)));
//!         assert_eq!(i.operand(Role::Vdst), Some(Operand::Vgpr { first: 1, width: 1 }));
//!     }
//!     other => panic!("unexpected {other:?}"),
//! }
//! // The VOP3 form of the same operation is the same Op.
//! let e64 = isa::decode(Target::Gfx1013, &[0xd503_0001, 0x0002_0084], 0).unwrap();
//! assert_eq!((e64.op, e64.form), (Op::VAddF32, isa::Form::E64));
//! assert_eq!(isa::disassemble(Target::Gfx1013, &words).unwrap(), "v_add_f32_e32 v1, 4, v0\ns_endpgm\n");
//! ```
//!
//! # Where the tables come from
//!
//! Opcode numbers, mnemonics, operand templates, immediate print classes and the canonical-bit masks are facts
//! about LLVM's AMDGPU disassembler, measured by probing `llvm-mc -triple=amdgcn -mcpu=gfx1013|gfx1030
//! --disassemble` (Debian LLVM 19.1.7) and committed as Rust data in `gen_tables.rs` and `op.rs` (one table per
//! encoding form and target, indexed by opcode). The probe scripts are in `src/isa/tablegen/` (`run_all.sh`
//! regenerates both files); nothing is generated at build time. The method, per encoding form and opcode:
//! disassemble a word with distinct values in every operand field (zeroing fields LLVM refuses), change one
//! field at a time to see which printed operand it drives and how wide it is, feed inline constants and literals
//! through each source to classify how immediates print ([`ImmClass`]), and flip every other bit to find the
//! bits LLVM requires to be zero (`must`) and the modifier bits it prints (`show`). The printed spellings that are
//! not per-opcode (hwreg, sendmsg, waitcnt, depctr, s_version, buffer formats, swizzle patterns, DPP controls,
//! export targets, image dims) are written out in `print_other.rs` and `decode_mimg.rs` and checked by the same
//! differential runs. The hardware meaning of fields follows the AMD "RDNA 1.0" / "RDNA 2" Instruction Set
//! Architecture reference guides (microcode formats chapter); LLVM's `AMDGPUDisassembler.cpp`,
//! `AMDGPUInstPrinter.cpp` and `SIDefines.h` (llvm-project, release/19.x) name the same fields. No LLVM code was
//! copied; only its output was observed.
//!
//! The two targets differ in their tables: e.g. VOP2 opcode 6 is `v_mac_legacy_f32` on gfx1013 and
//! `v_fmac_legacy_f32` on gfx1030; `v_mad_f32`/`v_mac_f32` exist only on gfx1013; gfx1013 has scalar stores and
//! scalar atomics in SMEM, gfx1030 has the dot-product VOP3P operations, `HW_REG_SHADER_CYCLES` and a
//! `depctr_hold_cnt` field.
//!
//! # Canonical and non-canonical words
//!
//! `Instruction::canonical` is false when LLVM 19 rejects the word but the decoder reads it as an instruction
//! ([`Instruction::non_canonical_reason`] says which case). The decoder returns such words rather than an
//! error, so a kernel that contains them can be modelled; what the hardware does with the fields LLVM rejects is
//! the interpreter's business, which refuses a set field it does not apply (`exec/fields.rs`). The cases, each
//! measured against llvm-mc:
//! - **Forms LLVM 19 lacks.** `v_pk_fmac_f16` in DPP16 and DPP8 form (VOP2 0x3c with src0 0xfa, 0xe9 or 0xea):
//!   llvm-project PR #144782 added them for GFX10, AMD's SP3 assembler accepts them and rows pinned from RDNA2
//!   hardware show them running (rule `valu.pk_fmac_dpp`). They print as LLVM prints the other gfx10 VOP2 DPP
//!   forms (`v_pk_fmac_f16_dpp v10, v20, v21 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf`); the rows are
//!   written by hand in `tables.rs` (`BEYOND_LLVM19`). An audit of the other VOP2 opcodes whose DPP or SDWA forms
//!   LLVM 19 rejects (the f64 and legacy multiply-adds, v_fmac/v_mac SDWA, v_dot2c/v_dot4c SDWA, v_swap and
//!   v_readfirstlane) found no document or measurement that they run, so they stay decode errors (and
//!   `Unsupported` in the interpreter).
//! - **Unused fields not zero.** A field the operation does not read (src1/src2 of a one- or two-source VOP3
//!   operation, abs/neg/omod/clamp bits of an operation without them, the data or vdst field of a DS/FLAT
//!   operation without one, MUBUF `lds` with `tfe`, the sampler field of an image operation that samples nothing,
//!   ...) holds a non-zero value. The peer corpus does this in one way only: two-source VOP3 operations with
//!   src2 = 0x080 (the inline constant 0), e.g. F64Arithmetic word 5 `d564000a 02020d04`
//!   (`v_add_f64 v[10:11], v[4:5], v[6:7]`); `tests/isa_corpus.rs` lists every such word.
//! - **Image NSA form with more address dwords than the operation reads.** (Not seen in practice.)
//!
//! Truly invalid words are a [`DecodeError`] naming the word index: an encoding prefix or opcode no table has
//! (`UnknownEncoding`, `UnknownOpcode`), an instruction whose literal or NSA dwords run past the end
//! (`Truncated`), or a field value the encoding reserves (`Reserved`: source codes 209..=234, a register tuple
//! running past s105/ttmp15/v255 or into VCC/M0, SDWA select 7, an SDWA literal, a dim or NSA size the image
//! operation has no form for). LLVM rejects all of these too.
//!
//! Where LLVM 19 prints something odd, this module prints the same, e.g.: register-class comments
//! (`v_cndmask_b32_e64 v10, v20, v30, v40/*Invalid register, operand has 'SReg_1_XEXEC' register class*/`),
//! `/* Invalid dpp_ctrl value */`, `neg(...)` around negated immediates, `sext(...)` for the neg bit of integer
//! sources in DPP16 and VOP3, `dst_unused:UNUSED_PAD` for the reserved value 3, two spaces after the mnemonic
//! of NSA sampling instructions, `s_version 152|UC_VERSION_W32_BIT`, SGPR tuples rounded down to their alignment
//! (`s21` read as a pair prints `s[20:21]`), and image instructions LLVM cannot move to the requested widths
//! keeping the widths of its default variant.
//!
//! # Differential figures
//!
//! `cargo run --release -p reference-model --example isa_diff -- --target gfx1013 --count 200000 --seed 1`
//! (and `--target gfx1030`): half the candidates are random words in each of the 21 encoding families (DPP16,
//! DPP8 and SDWA counted apart), half sweep every opcode value of every family with random operands. Figures
//! (LLVM 19.1.7, seed 1, 200,000 candidates per target):
//!
//! | target  | candidates | LLVM decodes | identical text, canonical | both reject (typed error) | non-canonical | llvm-mc crashed |
//! |---------|-----------:|-------------:|--------------------------:|--------------------------:|--------------:|----------------:|
//! | gfx1013 |    200,000 |       67,646 |           67,646 (100 %)  |                   110,393 |        21,900 |              61 |
//! | gfx1030 |    200,000 |       65,420 |           65,420 (100 %)  |                   113,748 |        20,771 |              61 |
//!
//! "LLVM decodes" counts candidates llvm-mc prints; all of them print identically here and are canonical. Every
//! LLVM rejection is a typed error ("both reject") or a non-canonical decode. llvm-mc 19 aborts on 61
//! candidates per target (the process crashes; the batch is split until the word is isolated); they are not
//! compared.
//!
//! `tests/isa_llvm_diff.rs` runs a seeded slice of the same comparison in CI (6,300 candidates per target) and
//! fails on any mismatch outside the known gap below. `tests/isa_corpus.rs` checks every kernel of
//! `shared/corpus/peer` on both targets: identical text for every instruction, non-canonical words exactly the
//! listed ones.
//!
//! # Known gaps
//!
//! - `image_bvh_intersect_ray` / `image_bvh64_intersect_ray` (gfx1030 only) are not decoded (typed error); the
//!   random runs above never produce a word LLVM accepts as one (their fixed fields are narrow), so they are not
//!   counted against the figure.
//! - MIMG widths follow LLVM's default variants as measured per opcode, NSA size and dim; two MIMG-only runs
//!   (`--family MIMG --count 100000`, seeds 13 and 21) match on all 36,104 words LLVM decodes, but the model of
//!   LLVM's fallback is empirical.
//! - Opcodes the hardware may have but LLVM does not print are typed errors: no document at hand backs them.
//!
//! # Fuzzing
//!
//! `tests/isa_fuzz.rs` (proptest) decodes and prints arbitrary word streams from every word index, half of the
//! words forced into a real encoding family: no panic, every error names its word index, bounded time (each
//! stream under 2 s). Long run: `ISA_FUZZ_CASES=2000000 cargo test --release -p reference-model --test isa_fuzz`
//! passed, 2,000,000 streams of up to 48 words (about 47 million decode calls) in 42 s. CI runs 4,000.

mod decode;
mod decode_mimg;
mod decode_other;
pub mod encode;
mod error;
mod op;
pub mod operand;
mod print;
mod print_other;
mod tables;
mod types;

pub use error::DecodeError;
pub use op::{Op, ALL_OPS};
pub use operand::{ImmClass, InlineFloat, Operand};
pub use types::*;

/// The gfx10 chip an instruction stream is decoded for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// PS5 GPU (RDNA 1 with some RDNA 2 features).
    Gfx1013,
    /// RDNA 2 (the family of the gfx1035/gfx1036 measurement hardware).
    Gfx1030,
}

impl Target {
    /// LLVM's processor name (`-mcpu=`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx1013 => "gfx1013",
            Target::Gfx1030 => "gfx1030",
        }
    }

    /// Parses an LLVM processor name.
    pub fn from_name(s: &str) -> Option<Target> {
        match s {
            "gfx1013" => Some(Target::Gfx1013),
            "gfx1030" => Some(Target::Gfx1030),
            _ => None,
        }
    }
}

/// Static operand facts of an operation, read off its operand template (the VOP3 form where it has one, so
/// VOP2 carry-in/out and VOPC destinations show as explicit operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpFacts {
    /// Number of source operands (src0..src2).
    pub sources: u8,
    /// Width in dwords of the destination (vector, or scalar for VOPC/readlane/SALU); 0 when there is none.
    pub dst_dwords: u8,
    /// Width in dwords of each source.
    pub src_dwords: [u8; 3],
    /// Width of a second, scalar destination (VOP3b carry-out, v_div_scale's VCC); 0 when there is none.
    pub sdst_dwords: u8,
    /// Width of the memory data operand (stores, atomics; buffer loads too), in dwords at tfe=0.
    pub data_dwords: u8,
    /// The 32-bit form names VCC implicitly (v_cndmask_b32_e32, v_add_co_ci_u32_e32, VOPC_e32).
    pub implicit_vcc: bool,
}

impl Op {
    /// LLVM's mnemonic without an encoding-form suffix (`v_add_f32`, `s_mov_b32`).
    pub fn mnemonic(self) -> &'static str {
        op::MNEMONICS[self as usize]
    }

    /// Static operand facts (number of sources, widths, carry-out).
    pub fn facts(self) -> OpFacts {
        op::FACTS[self as usize]
    }

    /// The operation LLVM spells `mnemonic` (no form suffix), if gfx1013 or gfx1030 has one. The generated
    /// mnemonic table is sorted, so this is a binary search.
    pub fn from_mnemonic(mnemonic: &str) -> Option<Op> {
        op::MNEMONICS
            .binary_search(&mnemonic)
            .ok()
            .map(|i| ALL_OPS[i])
    }
}

/// Decodes the instruction starting at word `index`; its size in words is `Instruction::size`.
pub fn decode(target: Target, words: &[u32], index: usize) -> Result<Instruction, DecodeError> {
    decode::decode_at(target, words, index)
}

/// Decodes a whole stream; stops at the first error.
pub fn decode_all(target: Target, words: &[u32]) -> Result<Vec<Instruction>, DecodeError> {
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let inst = decode(target, words, i)?;
        i += inst.size as usize;
        out.push(inst);
    }
    Ok(out)
}

/// Disassembles a stream, one line per instruction. A word that is no instruction stops it with the error
/// (llvm-mc instead warns and skips four bytes).
pub fn disassemble(target: Target, words: &[u32]) -> Result<String, DecodeError> {
    let mut s = String::new();
    for inst in decode_all(target, words)? {
        s.push_str(&inst.to_string());
        s.push('\n');
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_found_by_its_mnemonic() {
        for op in ALL_OPS {
            assert_eq!(Op::from_mnemonic(op.mnemonic()), Some(op));
        }
        assert_eq!(Op::from_mnemonic("v_add_f32_e64"), None);
    }
}
