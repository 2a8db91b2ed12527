//! Local data share of one workgroup.

/// LDS bytes of a workgroup. Accesses past the allocation follow the hardware rule: reads return 0 and writes
/// are dropped (rule `lds.out_of_range`, measured on RDNA2, seed 000: "out-of-range accesses return zero
/// without modifying LDS").
#[derive(Debug, Clone)]
pub struct Lds {
    bytes: Vec<u8>,
}

impl Lds {
    /// A zero-filled LDS of `size` bytes.
    pub fn new(size: usize) -> Lds {
        Lds {
            bytes: vec![0; size],
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Is `[addr, addr + len)` inside the allocation?
    pub fn in_range(&self, addr: u64, len: usize) -> bool {
        addr.checked_add(len as u64)
            .is_some_and(|end| end <= self.bytes.len() as u64)
    }

    /// Reads `len` (1, 2, 4 or 8) bytes little-endian; out of range reads 0.
    pub fn read(&self, addr: u64, len: usize) -> u64 {
        if !self.in_range(addr, len) {
            return 0;
        }
        let a = addr as usize;
        let mut v = 0u64;
        for i in 0..len {
            v |= (self.bytes[a + i] as u64) << (8 * i);
        }
        v
    }

    /// Writes the low `len` bytes of `v`; out of range is dropped.
    pub fn write(&mut self, addr: u64, len: usize, v: u64) {
        if !self.in_range(addr, len) {
            return;
        }
        let a = addr as usize;
        for i in 0..len {
            self.bytes[a + i] = (v >> (8 * i)) as u8;
        }
    }
}
