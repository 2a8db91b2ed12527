//! The decoded instruction and its typed fields.

use super::operand::Operand;
use super::tables::Row;
use super::{Op, Target};

/// Encoding family of an instruction (the top bits of its first word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar ALU with a 16-bit immediate.
    Sopk,
    /// Scalar compare.
    Sopc,
    /// Scalar program control.
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, one source (32-bit encoding).
    Vop1,
    /// Vector ALU, two sources (32-bit encoding).
    Vop2,
    /// Vector compare (32-bit encoding).
    Vopc,
    /// Vector ALU, 64-bit encoding (VOP3a and VOP3b).
    Vop3,
    /// Packed vector ALU (64-bit encoding).
    Vop3p,
    /// Vector parameter interpolation.
    Vintrp,
    /// Local/global data share.
    Ds,
    /// Untyped buffer memory.
    Mubuf,
    /// Typed buffer memory.
    Mtbuf,
    /// Image memory.
    Mimg,
    /// Flat, global and scratch memory.
    Flat,
    /// Export.
    Exp,
}

/// The form a vector ALU operation is encoded in; one [`Op`] can appear in several.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// The only form the encoding has (scalar, memory, VOP3-only and VOP3P operations).
    Native,
    /// The 32-bit VOP1/VOP2/VOPC form (`_e32`).
    E32,
    /// A VOP1/VOP2/VOPC operation promoted to VOP3 (`_e64`).
    E64,
    /// VOP1/VOP2/VOPC with a DPP16 control dword.
    Dpp16,
    /// VOP1/VOP2/VOPC with a DPP8 lane-select dword.
    Dpp8,
    /// VOP1/VOP2/VOPC with an SDWA control dword.
    Sdwa,
}

/// What an operand slot is in the encoding (the field it came from).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Vector destination.
    Vdst,
    /// Scalar destination (SOP, VOP3b carry-out, VOPC/SDWA compare mask, SMEM data).
    Sdst,
    /// Source 0.
    Src0,
    /// Source 1.
    Src1,
    /// Source 2.
    Src2,
    /// A literal constant built into the operation (v_madmk/v_madak/v_fmamk/v_fmaak, s_setreg_imm32).
    K,
    /// 16-bit immediate of SOPK/SOPP.
    Simm16,
    /// Vector address (DS, buffer, image, flat).
    Vaddr,
    /// Vector data (stores and atomics; loads' destination is `Vdst`).
    Vdata,
    /// Second vector data operand (DS two-data ops, cmpswap).
    Vdata1,
    /// Buffer or image resource descriptor.
    Srsrc,
    /// Sampler descriptor.
    Ssamp,
    /// Scalar offset.
    Soffset,
    /// Scalar base address (SMEM base, FLAT saddr).
    Sbase,
    /// Interpolation attribute.
    Attr,
}

/// One operand of an instruction, with the raw encoded field it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Which field.
    pub role: Role,
    /// The decoded operand.
    pub operand: Operand,
    /// The encoded field value (9-bit source code, register number, immediate bits).
    pub raw: u32,
}

/// VOP3/VOP3P source and output modifiers, as encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VopMods {
    /// abs per source (bit i: source i). In VOP3P `v_fma_mix*` this is the neg_hi field, used as abs.
    pub abs: u8,
    /// neg per source (VOP3P: neg_lo).
    pub neg: u8,
    /// VOP3P neg_hi per source.
    pub neg_hi: u8,
    /// op_sel: bit i for source i, bit 3 for the destination (VOP3); VOP3P op_sel per source.
    pub op_sel: u8,
    /// VOP3P op_sel_hi per source.
    pub op_sel_hi: u8,
    /// Clamp.
    pub clamp: bool,
    /// Output modifier: 0 none, 1 *2, 2 *4, 3 /2.
    pub omod: u8,
}

/// DPP16 row/lane control (`dpp_ctrl`), decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DppCtrl {
    /// `quad_perm:[a,b,c,d]` (0x000..=0x0ff).
    QuadPerm([u8; 4]),
    /// row_shl:1..15.
    RowShl(u8),
    /// row_shr:1..15.
    RowShr(u8),
    /// row_ror:1..15.
    RowRor(u8),
    /// row_mirror.
    RowMirror,
    /// row_half_mirror.
    RowHalfMirror,
    /// row_share:0..15 (gfx10).
    RowShare(u8),
    /// row_xmask:0..15 (gfx10).
    RowXmask(u8),
    /// wave_shl:1 and the other GCN wave/broadcast controls; gfx10 does not define them.
    Reserved(u16),
}

/// DPP16 control dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dpp16 {
    /// Lane pattern.
    pub ctrl: DppCtrl,
    /// Raw dpp_ctrl field.
    pub ctrl_raw: u16,
    /// Row enable mask.
    pub row_mask: u8,
    /// Bank enable mask.
    pub bank_mask: u8,
    /// bound_ctrl: out-of-range lanes read zero.
    pub bound_ctrl: bool,
    /// fi: fetch inactive lanes.
    pub fi: bool,
}

/// DPP8 lane selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dpp8 {
    /// Source lane (0..7) within each group of eight, per lane.
    pub sel: [u8; 8],
    /// fi: fetch inactive lanes (source code 0xEA rather than 0xE9).
    pub fi: bool,
}

/// SDWA operand selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SdwaSel {
    /// Byte 0..3.
    Byte(u8),
    /// Word 0..1.
    Word(u8),
    /// The whole dword.
    Dword,
    /// Encodings 7 (and 6 for sources) are reserved.
    Reserved(u8),
}

/// SDWA control dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sdwa {
    /// Destination select (VOP1/VOP2).
    pub dst_sel: SdwaSel,
    /// What happens to the unselected destination bits: 0 pad, 1 sext, 2 preserve.
    pub dst_unused: u8,
    /// Source 0 select.
    pub src0_sel: SdwaSel,
    /// Source 1 select.
    pub src1_sel: SdwaSel,
    /// Sign-extend source 0 / 1.
    pub sext: [bool; 2],
    /// Clamp.
    pub clamp: bool,
    /// Output modifier.
    pub omod: u8,
    /// VOPC: explicit scalar destination (else VCC).
    pub sdst: Option<u8>,
}

/// Memory and other encoding-specific fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemFields {
    /// Immediate offset (SMEM: 21-bit signed; MUBUF/MTBUF: 12-bit; FLAT: 12-bit signed (global/scratch)
    /// or 11-bit; DS: offset0 | offset1 << 8 for single-address ops).
    pub offset: i32,
    /// DS offset0 / offset1.
    pub offset01: [u8; 2],
    /// offen.
    pub offen: bool,
    /// idxen.
    pub idxen: bool,
    /// glc.
    pub glc: bool,
    /// slc.
    pub slc: bool,
    /// dlc.
    pub dlc: bool,
    /// lds (MUBUF/FLAT).
    pub lds: bool,
    /// tfe.
    pub tfe: bool,
    /// gds (DS).
    pub gds: bool,
    /// MTBUF format.
    pub format: u8,
    /// FLAT segment: 0 flat, 1 scratch, 2 global.
    pub seg: u8,
    /// MIMG dmask.
    pub dmask: u8,
    /// MIMG dim.
    pub dim: u8,
    /// MIMG unorm.
    pub unorm: bool,
    /// MIMG r128.
    pub r128: bool,
    /// MIMG a16.
    pub a16: bool,
    /// MIMG d16.
    pub d16: bool,
    /// MIMG lwe.
    pub lwe: bool,
    /// MIMG extra address dwords (NSA): 0 means the addresses are one contiguous range.
    pub nsa_dwords: u8,
    /// EXP enable mask.
    pub en: u8,
    /// EXP target.
    pub target: u8,
    /// EXP compr.
    pub compr: bool,
    /// EXP done.
    pub done: bool,
    /// EXP vm.
    pub vm: bool,
    /// VINTRP attribute channel.
    pub attr_chan: u8,
    /// VINTRP attribute.
    pub attr: u8,
}

/// Encoding-specific controls beyond the operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// Nothing beyond operands and `VopMods`.
    None,
    /// DPP16 dword.
    Dpp16(Dpp16),
    /// DPP8 dword.
    Dpp8(Dpp8),
    /// SDWA dword.
    Sdwa(Sdwa),
    /// SOPP/SOPK 16-bit immediate, as encoded.
    Simm16(u16),
    /// Memory, image, export and interpolation fields.
    Mem(MemFields),
}

/// Most operand slots any gfx10 instruction has (an NSA image instruction: data, 13 addresses, resource, sampler).
pub const MAX_SLOTS: usize = 16;

/// One decoded gfx10 instruction.
#[derive(Clone, Copy, Debug)]
pub struct Instruction {
    /// Target it was decoded for.
    pub target: Target,
    /// The operation; the same for every form of one VOP1/VOP2/VOPC operation.
    pub op: Op,
    /// Encoding family of the first word.
    pub encoding: Encoding,
    /// Encoding form.
    pub form: Form,
    /// VOP3/VOP3P modifiers (zero elsewhere).
    pub mods: VopMods,
    /// Encoding-specific controls.
    pub control: Control,
    /// False when LLVM 19 rejects the words although the hardware runs them (see module docs).
    pub canonical: bool,
    /// Size in dwords, literal and NSA address dwords included.
    pub size: u8,
    /// The instruction's words (the first `size` are meaningful).
    pub words: [u32; 5],
    pub(crate) slots: [Slot; MAX_SLOTS],
    pub(crate) nslots: u8,
    pub(crate) row: &'static Row,
}

impl Instruction {
    /// Operands in LLVM's printing order (destinations first).
    pub fn operands(&self) -> &[Slot] {
        &self.slots[..self.nslots as usize]
    }

    /// The first operand with `role`.
    pub fn operand(&self, role: Role) -> Option<Operand> {
        self.operands()
            .iter()
            .find(|s| s.role == role)
            .map(|s| s.operand)
    }

    /// The scalar register(s) a VALU lane mask (compare result, carry-out) goes to when the instruction names
    /// them: the SDST operand (VOP3B carry-outs, word 0 bits [14:8]), or, for VOPC in the VOP3 encoding
    /// (`v_cmp*_e64`), the VDST field, word 0 bits [7:0], which names an SGPR, a pair in wave64 (RDNA ISA
    /// guide, VOP3A: VDST is the destination VGPR, or the SGPR(s) of a VOPC result; LLVM's
    /// llvm/test/MC/AMDGPU/gfx10_asm_vopc_e64.s encodes `v_cmp_f_f32_e64 s[12:13], v1, v2` as
    /// `[0x0c,0x00,0x00,0xd4,...]`). LLVM's operand templates give that field the role `Vdst`, so it is not
    /// `operand(Role::Sdst)`. `None` where the mask goes to VCC implicitly (e32, DPP) or where the SDWA dword
    /// names it ([`Control::Sdwa`]).
    pub fn mask_dst(&self) -> Option<Operand> {
        self.operand(Role::Sdst)
            .or(match (self.encoding, self.operand(Role::Vdst)) {
                (Encoding::Vop3, Some(o)) if !matches!(o, Operand::Vgpr { .. }) => Some(o),
                _ => None,
            })
    }

    /// The words this instruction occupies.
    pub fn encoded(&self) -> &[u32] {
        &self.words[..self.size as usize]
    }

    /// Why llvm-mc 19 rejects this instruction, when it is not canonical: a form LLVM 19 lacks (decoded from
    /// evidence, see the `isa` module docs), or a field the operation does not use holding a non-zero value.
    /// This says what LLVM does, not what the hardware does with the word.
    pub fn non_canonical_reason(&self) -> Option<&'static str> {
        if self.canonical {
            None
        } else if super::tables::is_beyond_llvm19(self.row) {
            Some("llvm-mc 19 does not accept this form; newer LLVM does (llvm-project PR #144782)")
        } else {
            Some("llvm-mc 19 rejects it: a field the operation does not use is not zero")
        }
    }

    /// LLVM's mnemonic for this form (e.g. `v_add_f32_e64`).
    pub fn mnemonic(&self) -> &'static str {
        self.row.mn
    }
}
