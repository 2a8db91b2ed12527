//! Opcode tables: one per encoding form and target, indexed by opcode, generated once by probing `llvm-mc`
//! (the generator is described in the `isa` module docs) and committed as data.
//!
//! A row says which operation an opcode is, the mnemonic LLVM prints for that encoding form, the operand
//! template in printing order, and three bit masks over the instruction words:
//! - `must`/`want`: bits outside the operand fields that LLVM's decoder requires to equal `want` (unused source
//!   fields, modifier bits the operation does not take, ...). Words that differ there are the non-canonical
//!   decodes.
//! - `show`: modifier bits LLVM prints (abs/neg/clamp/omod/op_sel); bits outside `show` and `must` are accepted
//!   and ignored by LLVM's printer (they are still decoded into [`super::VopMods`]).

use super::operand::ImmClass;
use super::types::Role;
use super::{Op, Target};

/// How an operand field is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A vector register number.
    V,
    /// A scalar destination or source code (7/8-bit source space).
    S,
    /// A full source code (9-bit for VALU, 8-bit for SALU).
    Src,
    /// The literal dword after the instruction, always present.
    K,
    /// An SGPR pair index (SMEM sbase): register = field * 2.
    Sx2,
    /// An SGPR quad index (buffer/image resource, sampler): register = field * 4.
    Sx4,
    /// A 16-bit immediate (SOPK/SOPP simm16, SMEM's probe mask) printed in the given style.
    Simm(Style),
    /// SMEM offset / soffset pair, printed as one operand.
    SmemOff,
    /// VINTRP attribute and channel (`attr3.y`).
    Attr,
    /// VINTRP parameter selector (`p10`, `p20`, `p0`).
    Param,
}

/// How LLVM prints a 16-bit immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// Unsigned decimal.
    Dec,
    /// Decimal up to 15... hex above (see `fmt_simm`).
    HexSmall,
    /// Always hex.
    Hex,
    /// `vmcnt(n) expcnt(n) lgkmcnt(n)`.
    Waitcnt,
    /// `sendmsg(...)`.
    Sendmsg,
    /// `depctr_*(n) ...`.
    Depctr,
    /// `hwreg(id, offset, size)`.
    Hwreg,
    /// `UC_VERSION_*` names.
    Version,
    /// s_endpgm: nothing when zero, decimal otherwise.
    Endpgm,
}

/// One token of an operand template.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tok {
    /// An operand taken from a field.
    F {
        role: Role,
        kind: Kind,
        width: u8,
        class: ImmClass,
        /// Index into [`BAD`]: the comment LLVM appends when the operand's register class does not fit.
        bad: u8,
    },
    /// Text LLVM prints as it is (implicit operands such as `vcc_lo`).
    T(&'static str),
}

/// One opcode of one encoding form on one target.
#[derive(Debug)]
pub(crate) struct Row {
    pub op: Op,
    pub mn: &'static str,
    pub tpl: &'static [Tok],
    pub must: [u32; 2],
    pub want: [u32; 2],
    pub show: [u32; 2],
    /// Bit 0/1: in DPP16, source 0/1's neg bit prints as `sext(...)`; bits 2..4: the same for VOP3 sources 0..2.
    pub flags: u8,
}

/// Comments LLVM appends after an operand whose register class does not fit the instruction.
#[derive(Debug)]
pub(crate) struct Bad {
    pub vgpr: &'static str,
    pub imm: &'static str,
    pub sgpr: &'static str,
    pub lds: &'static str,
    pub special: &'static str,
    /// Which special registers take `special`: bits over vcc_lo, vcc_hi, ttmp, m0, null, exec_lo, exec_hi.
    pub special_mask: u8,
}

/// Tables by encoding form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    Vop3p,
    Vop1Dpp16,
    Vop2Dpp16,
    VopcDpp16,
    Vop1Dpp8,
    Vop2Dpp8,
    VopcDpp8,
    Vop1Sdwa,
    Vop2Sdwa,
    VopcSdwa,
    Vintrp,
    Ds,
    Mubuf,
    Mtbuf,
    Mimg,
    Flat,
    FlatGlc,
    Global,
    GlobalGlc,
    Scratch,
    ScratchGlc,
}

include!("gen_tables.rs");

/// The row for `opcode` in `table` on `target`, if the opcode is defined there: LLVM 19's table, else one of
/// the [`BEYOND_LLVM19`] forms.
pub(crate) fn row(target: Target, table: Table, opcode: usize) -> Option<&'static Row> {
    let t: &'static [Option<Row>] = lookup(target, table);
    t.get(opcode)
        .and_then(|r| r.as_ref())
        .or_else(|| beyond_llvm19(table, opcode))
}

/// `vdst, src0, src1`, all VGPRs: the operands of a VOP2 DPP16/DPP8 word.
static TPL_VOP2_DPP: [Tok; 3] = [
    Tok::F {
        role: Role::Vdst,
        kind: Kind::V,
        width: 1,
        class: ImmClass::B32,
        bad: 0,
    },
    Tok::F {
        role: Role::Src0,
        kind: Kind::V,
        width: 1,
        class: ImmClass::B32,
        bad: 0,
    },
    Tok::F {
        role: Role::Src1,
        kind: Kind::V,
        width: 1,
        class: ImmClass::B32,
        bad: 0,
    },
];

/// Encoding forms that LLVM 19 rejects but that hardware evidence and a newer LLVM support, written by hand:
/// `v_pk_fmac_f16` (VOP2 0x3c) in DPP16 and DPP8 form. llvm-project PR #144782 added them for GFX10, AMD's SP3
/// assembler accepts them, and rows pinned from RDNA2 hardware (rule `valu.pk_fmac_dpp`) show the packed f16
/// fused multiply-add with the DPP-selected src0 lane. Instructions decoded from these rows are not canonical
/// ([`super::Instruction::canonical`]: llvm-mc 19 rejects the words). The DPP16 neg/abs bits are outside
/// `show` (no document defines them for a packed source), so the printer leaves them out as LLVM does for the
/// integer DPP forms; the model refuses them.
pub(crate) static BEYOND_LLVM19: [(Table, usize, Row); 2] = [
    (
        Table::Vop2Dpp16,
        0x3c,
        Row {
            op: Op::VPkFmacF16,
            mn: "v_pk_fmac_f16_dpp",
            tpl: &TPL_VOP2_DPP,
            must: [0, 0],
            want: [0, 0],
            show: [0, 0xff0d_ff00],
            flags: 0,
        },
    ),
    (
        Table::Vop2Dpp8,
        0x3c,
        Row {
            op: Op::VPkFmacF16,
            mn: "v_pk_fmac_f16_dpp",
            tpl: &TPL_VOP2_DPP,
            must: [0, 0],
            want: [0, 0],
            show: [0, 0xffff_ff00],
            flags: 0,
        },
    ),
];

fn beyond_llvm19(table: Table, opcode: usize) -> Option<&'static Row> {
    BEYOND_LLVM19
        .iter()
        .find(|(t, o, _)| *t == table && *o == opcode)
        .map(|(_, _, r)| r)
}

/// Is `r` one of the [`BEYOND_LLVM19`] rows?
pub(crate) fn is_beyond_llvm19(r: &Row) -> bool {
    BEYOND_LLVM19.iter().any(|(_, _, x)| std::ptr::eq(x, r))
}

/// What LLVM prints for one MIMG opcode, measured: for each NSA size (0..=3) and each `a16 * 8 + dim`, the data
/// dwords and address count with dmask 0xf (and tfe for gather4 and msaa_load, so that a successful move to the
/// requested widths shows); `[0, 0]` where LLVM rejects the word. `default` is the variant LLVM keeps per NSA size
/// when it cannot move to the requested widths (`[0, 0]`: never seen).
#[derive(Debug)]
pub(crate) struct MimgInfo {
    /// Data dwords the measuring probe asked for (4; 5 for gather4; 1 or 2 for atomics).
    pub probe_data: u8,
    pub printed: [[[u8; 2]; 16]; 4],
    pub default: [[u8; 2]; 4],
}
