//! Guest memory as the command processor sees it: named regions at fixed guest addresses. Command buffers,
//! shader code, indirect arguments and the dispatch's arrays all live here; every access outside a region is a
//! [`Fault`], never a host panic.

use std::fmt;

/// GPU virtual addresses are 48 bits on gfx10 (COMPUTE_PGM_HI holds bits 47:40).
pub const ADDRESS_BITS: u32 = 48;

/// One region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Name: an array name of the `measurements` crate (ASCII letters, digits, `_`, `-`), unique here. A
    /// dispatch's job names its arrays after the regions.
    pub name: String,
    /// Guest address of byte 0 (a multiple of 4).
    pub base: u64,
    /// Contents (a multiple of 4 bytes).
    pub bytes: Vec<u8>,
}

impl Region {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }

    /// The contents as little-endian dwords.
    pub fn dwords(&self) -> Vec<u32> {
        self.bytes.chunks_exact(4).map(le).collect()
    }
}

/// A little-endian dword from 4 bytes (0 for a shorter slice, which `chunks_exact(4)` never gives).
pub(crate) fn le(c: &[u8]) -> u32 {
    <[u8; 4]>::try_from(c).map_or(0, u32::from_le_bytes)
}

/// An access outside every region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// First byte.
    pub address: u64,
    /// Bytes.
    pub len: u64,
    /// A write.
    pub write: bool,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} bytes at {:#x} is outside every region of guest memory",
            if self.write { "a write" } else { "a read" },
            self.len,
            self.address
        )
    }
}

/// Why a region cannot be mapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// The name is not an array name, or is taken.
    #[error("region name `{name}`: {reason}")]
    Name {
        /// The name.
        name: String,
        /// Why.
        reason: String,
    },
    /// The base or size is not a multiple of 4, or the region leaves the 48-bit address space.
    #[error("region `{name}` at {base:#x} ({bytes} bytes): {reason}")]
    Placement {
        /// The name.
        name: String,
        /// The base.
        base: u64,
        /// The size.
        bytes: u64,
        /// Why.
        reason: String,
    },
    /// It overlaps another region.
    #[error("region `{name}` at {base:#x}..{end:#x} overlaps region `{other}`")]
    Overlap {
        /// The name.
        name: String,
        /// The base.
        base: u64,
        /// One past its end.
        end: u64,
        /// The region it overlaps.
        other: String,
    },
}

/// All regions, sorted by address, never overlapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    regions: Vec<Region>,
}

impl Memory {
    /// No regions.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Maps `dwords` at `base` as region `name`.
    pub fn map(&mut self, name: &str, base: u64, dwords: &[u32]) -> Result<(), MapError> {
        measurements::names::array(name).map_err(|reason| MapError::Name {
            name: name.to_string(),
            reason,
        })?;
        if self.regions.iter().any(|r| r.name == name) {
            return Err(MapError::Name {
                name: name.to_string(),
                reason: "another region has it".into(),
            });
        }
        let bytes = dwords.len() as u64 * 4;
        let placement = |reason: &str| MapError::Placement {
            name: name.to_string(),
            base,
            bytes,
            reason: reason.to_string(),
        };
        if base % 4 != 0 {
            return Err(placement("the base is not a multiple of 4"));
        }
        let end = base
            .checked_add(bytes)
            .filter(|&e| e <= 1 << ADDRESS_BITS)
            .ok_or_else(|| placement("it ends past the 48-bit GPU address space"))?;
        if let Some(o) = self
            .regions
            .iter()
            .find(|r| r.base == base || (base < r.end() && r.base < end))
        {
            return Err(MapError::Overlap {
                name: name.to_string(),
                base,
                end,
                other: o.name.clone(),
            });
        }
        let at = self.regions.partition_point(|r| r.base < base);
        self.regions.insert(
            at,
            Region {
                name: name.to_string(),
                base,
                bytes: dwords.iter().flat_map(|d| d.to_le_bytes()).collect(),
            },
        );
        Ok(())
    }

    /// The regions, by address.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The region named `name`.
    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }

    /// The region holding byte `address`.
    pub fn region_at(&self, address: u64) -> Option<&Region> {
        self.regions
            .iter()
            .find(|r| address >= r.base && address < r.end())
    }

    fn locate(&self, address: u64, len: u64, write: bool) -> Result<(usize, usize), Fault> {
        let fault = Fault {
            address,
            len,
            write,
        };
        let end = address.checked_add(len).ok_or(fault)?;
        self.regions
            .iter()
            .enumerate()
            .find(|(_, r)| address >= r.base && end <= r.end())
            .map(|(i, r)| (i, (address - r.base) as usize))
            .ok_or(fault)
    }

    /// `len` bytes at `address`, wholly inside one region.
    pub fn read(&self, address: u64, len: u64) -> Result<&[u8], Fault> {
        let (i, off) = self.locate(address, len, false)?;
        self.regions
            .get(i)
            .and_then(|r| r.bytes.get(off..off + len as usize))
            .ok_or(Fault {
                address,
                len,
                write: false,
            })
    }

    /// `n` little-endian dwords at `address`.
    pub fn read_dwords(&self, address: u64, n: u64) -> Result<Vec<u32>, Fault> {
        let len = n.checked_mul(4).ok_or(Fault {
            address,
            len: u64::MAX,
            write: false,
        })?;
        Ok(self.read(address, len)?.chunks_exact(4).map(le).collect())
    }

    /// `bytes` written at `address`, wholly inside one region.
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Fault> {
        let len = bytes.len() as u64;
        let (i, off) = self.locate(address, len, true)?;
        let dst = self
            .regions
            .get_mut(i)
            .and_then(|r| r.bytes.get_mut(off..off + bytes.len()))
            .ok_or(Fault {
                address,
                len,
                write: true,
            })?;
        dst.copy_from_slice(bytes);
        Ok(())
    }

    /// A dword written at `address`.
    pub fn write_u32(&mut self, address: u64, v: u32) -> Result<(), Fault> {
        self.write(address, &v.to_le_bytes())
    }

    /// Replaces the contents of region `name` with `dwords` of the same size (a dispatch's results). `false`
    /// when there is no such region or the size differs.
    pub fn replace(&mut self, name: &str, dwords: &[u32]) -> bool {
        match self.regions.iter_mut().find(|r| r.name == name) {
            Some(r) if r.bytes.len() == dwords.len() * 4 => {
                for (dst, d) in r.bytes.chunks_exact_mut(4).zip(dwords) {
                    dst.copy_from_slice(&d.to_le_bytes());
                }
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_do_not_overlap_and_accesses_stay_inside() {
        let mut m = Memory::new();
        m.map("a", 0x1000, &[1, 2, 3, 4]).unwrap();
        m.map("b", 0x2000, &[5]).unwrap();
        assert!(matches!(
            m.map("c", 0x100c, &[0, 0]),
            Err(MapError::Overlap { .. })
        ));
        assert!(matches!(
            m.map("a", 0x3000, &[0]),
            Err(MapError::Name { .. })
        ));
        assert!(matches!(
            m.map("d.x", 0x3000, &[0]),
            Err(MapError::Name { .. })
        ));
        assert!(matches!(
            m.map("d", 0x3002, &[0]),
            Err(MapError::Placement { .. })
        ));
        assert!(matches!(
            m.map("d", (1 << 48) - 4, &[0, 0]),
            Err(MapError::Placement { .. })
        ));
        assert_eq!(m.read_dwords(0x1004, 2).unwrap(), vec![2, 3]);
        assert_eq!(
            m.read_dwords(0x100c, 2),
            Err(Fault {
                address: 0x100c,
                len: 8,
                write: false
            })
        );
        m.write_u32(0x2000, 9).unwrap();
        assert_eq!(m.region("b").unwrap().dwords(), vec![9]);
        assert!(m.write_u32(0x2004, 9).is_err());
        assert!(m.read(u64::MAX - 1, 4).is_err());
        assert!(m.replace("a", &[7, 7, 7, 7]));
        assert!(!m.replace("a", &[7]));
        assert_eq!(m.region_at(0x100f).unwrap().name, "a");
    }
}
