//! Buffer resources (V#) and buffer addressing of gfx10 MUBUF/MTBUF.
//!
//! Sources: the RDNA 2 ISA guide (AMD, "RDNA 2 Instruction Set Architecture", chapter "Buffer instructions":
//! resource fields, linear and swizzled addressing, range checking by OOB_SELECT) and the buffer word-3 field
//! layout of LLVM's `SIDefines.h` / Mesa's `sid.h` for gfx10. The peer suite `peer-buffer-load-store` pins the
//! results on RDNA2 hardware (rules `buffer.*` in [`crate::rules`]).

/// A decoded buffer resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vsharp {
    /// Base address (48 bits).
    pub base: u64,
    /// Record stride in bytes (14 bits).
    pub stride: u32,
    /// Swizzled addressing.
    pub swizzle: bool,
    /// NUM_RECORDS: bytes (raw) or records (structured), by OOB_SELECT.
    pub num_records: u32,
    /// DST_SEL_X..W (0 = 0, 1 = 1, 4..7 = X..W).
    pub dst_sel: [u8; 4],
    /// The 7-bit unified buffer format of gfx10.
    pub format: u8,
    /// INDEX_STRIDE as a count of lanes: 8, 16, 32 or 64.
    pub index_stride: u32,
    /// ADD_TID_ENABLE: the lane id is added to the index.
    pub add_tid: bool,
    /// OOB_SELECT.
    pub oob_select: u8,
}

impl Vsharp {
    /// Decodes the four resource dwords.
    pub fn from_words(w: [u32; 4]) -> Vsharp {
        Vsharp {
            base: w[0] as u64 | ((w[1] & 0xffff) as u64) << 32,
            stride: (w[1] >> 16) & 0x3fff,
            swizzle: w[1] >> 31 & 1 == 1,
            num_records: w[2],
            dst_sel: [
                (w[3] & 7) as u8,
                (w[3] >> 3 & 7) as u8,
                (w[3] >> 6 & 7) as u8,
                (w[3] >> 9 & 7) as u8,
            ],
            format: (w[3] >> 12 & 0x7f) as u8,
            index_stride: 8 << (w[3] >> 21 & 3),
            add_tid: w[3] >> 23 & 1 == 1,
            oob_select: (w[3] >> 28 & 3) as u8,
        }
    }
}

/// The per-lane inputs of one buffer access.
#[derive(Debug, Clone, Copy)]
pub struct Access {
    /// Index from VADDR (idxen), 0 otherwise.
    pub vindex: u32,
    /// Offset from VADDR (offen), 0 otherwise.
    pub voffset: u32,
    /// The instruction's immediate offset.
    pub inst_offset: u32,
    /// The SOFFSET operand's value.
    pub soffset: u32,
    /// The lane's id in its wave (for ADD_TID_ENABLE).
    pub lane: u32,
}

/// Swizzled element size in bytes. gfx10 resources have no ELEMENT_SIZE field (gfx9's bits 20:19 became part
/// of FORMAT); the RDNA guide fixes it at 4 bytes. Rule `buffer.swizzle_element_4` (documented).
pub const SWIZZLE_ELEMENT: u32 = 4;

/// Where a lane's access goes and whether it is in range, for one dword (or sub-dword) piece of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Guest address.
    pub address: u64,
    /// False when range checking drops the piece (loads give 0, stores are dropped).
    pub in_range: bool,
}

/// Computes the address and range check of bytes `[at, at + size)` of an access (at = 4 * component for
/// multi-dword accesses, 0 otherwise).
///
/// Range checks (rule `buffer.range_check`, RDNA 2 guide "Range checking"): OOB_SELECT 0 checks the index
/// against NUM_RECORDS and the offset against the stride; 1 checks the index only; 2 disables the check except
/// that NUM_RECORDS 0 is empty; 3 (raw) checks the byte offset `voffset + inst_offset + at + size` against
/// NUM_RECORDS. SOFFSET moves the address but is not part of the checked offset.
pub fn piece(v: &Vsharp, a: &Access, at: u32, size: u32) -> Piece {
    let index = a.vindex.wrapping_add(if v.add_tid { a.lane } else { 0 }) as u64;
    let offset = a.voffset as u64 + a.inst_offset as u64 + at as u64;
    let stride = v.stride as u64;
    let buffer_offset = if v.swizzle {
        let es = SWIZZLE_ELEMENT as u64;
        let is = v.index_stride as u64;
        let (index_msb, index_lsb) = (index / is, index % is);
        let (offset_msb, offset_lsb) = (offset / es, offset % es);
        (index_msb * stride + offset_msb * es) * is + index_lsb * es + offset_lsb
    } else {
        index * stride + offset
    };
    let address = v
        .base
        .wrapping_add(a.soffset as u64)
        .wrapping_add(buffer_offset)
        & 0xffff_ffff_ffff;
    let records = v.num_records as u64;
    let end = offset + size as u64;
    let in_range = match v.oob_select {
        0 => index < records && (stride == 0 || end <= stride),
        1 => index < records,
        2 => records != 0,
        _ => end <= records,
    };
    Piece { address, in_range }
}
