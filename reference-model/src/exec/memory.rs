//! Guest memory: explicit regions at guest addresses. An access that is not wholly inside one region is a
//! [`MemFault`], never a host panic or a read of host memory.

use measurements::job::{out_of_memory, BackendError};

/// A faulting access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemFault {
    /// First byte of the access.
    pub address: u64,
    /// Bytes accessed.
    pub len: usize,
    /// Was it a write?
    pub write: bool,
}

/// One mapped region.
#[derive(Debug, Clone)]
pub struct Region {
    /// Name (the job's array name).
    pub name: String,
    /// Guest address of byte 0.
    pub base: u64,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// All regions of one dispatch, sorted by address, never overlapping.
#[derive(Debug, Clone, Default)]
pub struct GuestMemory {
    regions: Vec<Region>,
}

/// Where the first region goes: above 4 GiB, so address bits 47:32 are exercised by every kernel.
pub const FIRST_BASE: u64 = 0x0000_0001_0000_0000;
/// Unmapped bytes left between regions, so a small overrun faults instead of reading a neighbour.
pub const GUARD: u64 = 0x1_0000;

impl GuestMemory {
    /// No regions.
    pub fn new() -> GuestMemory {
        GuestMemory::default()
    }

    /// Maps `bytes` after the last region (plus a guard gap) at an address aligned to `align` (a power of two).
    ///
    /// `bytes` may be empty (a 0-byte array): the region still gets an address of its own, a guard gap from
    /// each neighbour, so a V# over it points where no other array is. Buffer accesses through a V# of size 0
    /// are range-checked out and never reach memory; any other access to that address faults, as for any
    /// unmapped address.
    pub fn map(&mut self, name: &str, align: u64, bytes: Vec<u8>) -> u64 {
        let align = align.max(1).next_power_of_two();
        let start = self
            .regions
            .last()
            .map_or(FIRST_BASE, |r| r.base + r.bytes.len() as u64 + GUARD);
        let base = start.div_ceil(align) * align;
        self.regions.push(Region {
            name: name.to_string(),
            base,
            bytes,
        });
        base
    }

    /// Maps the little-endian bytes of `dwords` like [`GuestMemory::map`]; the copy is allocated with
    /// `try_reserve`, so a host that cannot give the memory gets [`BackendError::OutOfMemory`] instead of an abort.
    pub fn try_map(&mut self, name: &str, align: u64, dwords: &[u32]) -> Result<u64, BackendError> {
        let len = dwords.len().saturating_mul(4);
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(len)
            .map_err(|_| out_of_memory(&format!("mapping array `{name}`"), len as u64))?;
        bytes.extend(dwords.iter().flat_map(|d| d.to_le_bytes()));
        self.regions
            .try_reserve(1)
            .map_err(|_| out_of_memory("the region list", 0))?;
        Ok(self.map(name, align, bytes))
    }

    /// Maps the little-endian bytes of `dwords` at exactly `base` (a job with fixed guest addresses,
    /// [`measurements::job::Job::addresses`]); the regions stay sorted, so a later [`GuestMemory::map`] still goes
    /// after the highest one. A region that would overlap another, share its base or end past 2^64 is
    /// [`BackendError::InvalidJob`] naming both; host memory the copy cannot get is
    /// [`BackendError::OutOfMemory`].
    pub fn try_map_at(
        &mut self,
        name: &str,
        base: u64,
        dwords: &[u32],
    ) -> Result<u64, BackendError> {
        let len = dwords.len().saturating_mul(4);
        let end = base.checked_add(len as u64).ok_or_else(|| {
            BackendError::InvalidJob(format!(
                "array `{name}` at {base:#x} ({len} bytes) ends past the 64-bit address space"
            ))
        })?;
        // Half-open ranges; a 0-byte region still owns its base, so two arrays never share an address.
        let clash = self.regions.iter().find(|r| {
            let r_end = r.base + r.bytes.len() as u64;
            r.base == base || (base < r_end && r.base < end)
        });
        if let Some(r) = clash {
            return Err(BackendError::InvalidJob(format!(
                "array `{name}` at {base:#x}..{end:#x} overlaps array `{}` at {:#x}..{:#x}",
                r.name,
                r.base,
                r.base + r.bytes.len() as u64
            )));
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(len)
            .map_err(|_| out_of_memory(&format!("mapping array `{name}`"), len as u64))?;
        bytes.extend(dwords.iter().flat_map(|d| d.to_le_bytes()));
        self.regions
            .try_reserve(1)
            .map_err(|_| out_of_memory("the region list", 0))?;
        let at = self.regions.partition_point(|r| r.base < base);
        self.regions.insert(
            at,
            Region {
                name: name.to_string(),
                base,
                bytes,
            },
        );
        Ok(base)
    }

    /// The region named `name`.
    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }

    fn locate(&self, address: u64, len: usize, write: bool) -> Result<(usize, usize), MemFault> {
        let fault = MemFault {
            address,
            len,
            write,
        };
        let end = address.checked_add(len as u64).ok_or(fault)?;
        // Few regions per dispatch: a linear scan is cheaper than a search structure.
        for (i, r) in self.regions.iter().enumerate() {
            if address >= r.base && end <= r.base + r.bytes.len() as u64 {
                return Ok((i, (address - r.base) as usize));
            }
        }
        Err(fault)
    }

    /// Reads `out.len()` bytes at `address`.
    pub fn read(&self, address: u64, out: &mut [u8]) -> Result<(), MemFault> {
        let (i, off) = self.locate(address, out.len(), false)?;
        out.copy_from_slice(&self.regions[i].bytes[off..off + out.len()]);
        Ok(())
    }

    /// Writes `data` at `address`.
    pub fn write(&mut self, address: u64, data: &[u8]) -> Result<(), MemFault> {
        let (i, off) = self.locate(address, data.len(), true)?;
        self.regions[i].bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Reads a little-endian dword.
    pub fn read_u32(&self, address: u64) -> Result<u32, MemFault> {
        let mut b = [0; 4];
        self.read(address, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Writes a little-endian dword.
    pub fn write_u32(&mut self, address: u64, value: u32) -> Result<(), MemFault> {
        self.write(address, &value.to_le_bytes())
    }
}

/// Converts dwords to little-endian bytes.
pub fn dwords_to_bytes(dwords: &[u32]) -> Vec<u8> {
    dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
}

/// Converts little-endian bytes to dwords (a trailing partial dword is dropped).
pub fn bytes_to_dwords(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_regions_are_kept_sorted_and_never_overlap() {
        let mut m = GuestMemory::new();
        assert_eq!(m.try_map_at("hi", 0x9000, &[7, 8]), Ok(0x9000));
        assert_eq!(m.try_map_at("lo", 0x1000, &[5]), Ok(0x1000));
        assert!(matches!(
            m.try_map_at("x", 0x9004, &[0]),
            Err(BackendError::InvalidJob(_))
        ));
        assert!(matches!(
            m.try_map_at("x", 0x1000, &[]),
            Err(BackendError::InvalidJob(_))
        ));
        assert!(matches!(
            m.try_map_at("x", u64::MAX - 3, &[0, 0]),
            Err(BackendError::InvalidJob(_))
        ));
        assert_eq!(m.read_u32(0x9004).unwrap(), 8);
        // A placed region goes after the highest fixed one.
        let k = m.map("k", 256, vec![0; 4]);
        assert!(k >= 0x9008 + GUARD);
    }

    #[test]
    fn regions_fault_outside_and_across() {
        let mut m = GuestMemory::new();
        let a = m.map("a", 256, vec![0; 16]);
        let b = m.map("b", 256, vec![0; 16]);
        assert_eq!(a, FIRST_BASE);
        assert!(b >= a + 16 + GUARD && b % 256 == 0);
        m.write_u32(a + 12, 0x1122_3344).unwrap();
        assert_eq!(m.read_u32(a + 12).unwrap(), 0x1122_3344);
        assert_eq!(
            m.read_u32(a + 13),
            Err(MemFault {
                address: a + 13,
                len: 4,
                write: false
            })
        );
        assert!(m.read_u32(0).is_err());
        assert!(m.write_u32(u64::MAX - 1, 0).is_err());
        assert!(m.read_u32(b - 4).is_err(), "the guard gap is unmapped");
    }

    #[test]
    fn try_map_copies_dwords_little_endian() {
        let mut m = GuestMemory::new();
        let a = m.try_map("a", 256, &[0x1122_3344, 5]).unwrap();
        assert_eq!((m.read_u32(a), m.read_u32(a + 4)), (Ok(0x1122_3344), Ok(5)));
        assert_eq!(m.read(a, &mut [0; 1]).map(|_| ()), Ok(()));
        assert!(m.read_u32(a + 8).is_err());
    }

    #[test]
    fn a_zero_byte_region_has_an_address_and_no_bytes() {
        let mut m = GuestMemory::new();
        let a = m.map("a", 256, vec![0; 16]);
        let empty = m.map("empty", 256, Vec::new());
        let b = m.map("b", 256, vec![0; 16]);
        assert!(empty >= a + 16 + GUARD && b >= empty + GUARD);
        assert_eq!(
            m.region("empty").map(|r| (r.base, r.bytes.len())),
            Some((empty, 0))
        );
        // Nothing is at its address: an access there faults like any unmapped one.
        for at in [empty, empty - 4, empty + 4] {
            assert!(m.read_u32(at).is_err(), "{at:#x}");
            assert!(m.write_u32(at, 1).is_err(), "{at:#x}");
        }
        // The regions around it are whole.
        m.write_u32(a + 12, 1).unwrap();
        m.write_u32(b, 2).unwrap();
        assert_eq!((m.read_u32(a + 12), m.read_u32(b)), (Ok(1), Ok(2)));
    }
}
