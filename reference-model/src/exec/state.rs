//! Register state of one wave: the scalar file (SGPRs, VCC, TTMP, M0, EXEC, SCC), the vector file (VGPRs per
//! lane) and the hardware registers a kernel can read.

/// Scalar register numbers as gfx10 encodes them in SSRC/SDST fields.
pub mod sreg {
    /// Number of general SGPRs (s0..s105).
    pub const SGPRS: usize = 106;
    /// VCC_LO.
    pub const VCC_LO: usize = 106;
    /// VCC_HI.
    pub const VCC_HI: usize = 107;
    /// First trap temporary (ttmp0..ttmp15 are 108..123).
    pub const TTMP0: usize = 108;
    /// M0.
    pub const M0: usize = 124;
    /// NULL: reads 0, writes are dropped.
    pub const NULL: usize = 125;
    /// EXEC_LO.
    pub const EXEC_LO: usize = 126;
    /// EXEC_HI.
    pub const EXEC_HI: usize = 127;
}

/// VGPRs a wave may address (v0..v255).
pub const VGPRS: usize = 256;

/// The register state of one wave.
#[derive(Debug, Clone)]
pub struct Wave {
    /// 32 or 64 lanes.
    pub lanes: usize,
    /// The scalar file indexed by encoding number (0..=127); see [`sreg`].
    pub s: [u32; 128],
    /// The vector file, `v[reg * 64 + lane]` (64 lanes reserved even in wave32, so wave size never changes
    /// indexing).
    pub v: Vec<u32>,
    /// SCC.
    pub scc: bool,
    /// Program counter in words from the kernel's start.
    pub pc: usize,
    /// Set by s_endpgm.
    pub done: bool,
    /// Waiting at s_barrier.
    pub at_barrier: bool,
    /// The MODE hardware register (float mode and the bits around it).
    pub mode: u32,
    /// Wave index in the workgroup.
    pub wave_id: u32,
    /// Instructions executed.
    pub executed: u64,
}

impl Wave {
    /// A wave with every register zero.
    pub fn new(lanes: usize, wave_id: u32) -> Wave {
        Wave {
            lanes,
            s: [0; 128],
            v: vec![0; VGPRS * 64],
            scc: false,
            pc: 0,
            done: false,
            at_barrier: false,
            mode: 0,
            wave_id,
            executed: 0,
        }
    }

    /// Is this a wave64?
    pub fn wave64(&self) -> bool {
        self.lanes == 64
    }

    /// Mask of the lanes the wave has.
    pub fn lane_mask(&self) -> u64 {
        if self.lanes == 64 {
            u64::MAX
        } else {
            (1u64 << self.lanes) - 1
        }
    }

    /// EXEC as a 64-bit mask (EXEC_HI ignored in wave32).
    pub fn exec(&self) -> u64 {
        (self.s[sreg::EXEC_LO] as u64 | (self.s[sreg::EXEC_HI] as u64) << 32) & self.lane_mask()
    }

    /// Sets EXEC (only EXEC_LO in wave32; EXEC_HI keeps what was written to it directly).
    pub fn set_exec(&mut self, m: u64) {
        self.s[sreg::EXEC_LO] = m as u32;
        if self.wave64() {
            self.s[sreg::EXEC_HI] = (m >> 32) as u32;
        }
    }

    /// VCC as a 64-bit mask (VCC_HI ignored in wave32).
    pub fn vcc(&self) -> u64 {
        (self.s[sreg::VCC_LO] as u64 | (self.s[sreg::VCC_HI] as u64) << 32) & self.lane_mask()
    }

    /// Reads a lane mask held in SGPRs starting at `reg` (one SGPR in wave32, a pair in wave64).
    pub fn mask_at(&self, reg: usize) -> u64 {
        let lo = self.sget(reg) as u64;
        if self.wave64() {
            lo | (self.sget(reg + 1) as u64) << 32
        } else {
            lo
        }
    }

    /// Writes a lane mask to SGPRs starting at `reg`.
    pub fn set_mask_at(&mut self, reg: usize, m: u64) {
        self.sset(reg, m as u32);
        if self.wave64() {
            self.sset(reg + 1, (m >> 32) as u32);
        }
    }

    /// Reads scalar register `reg` (NULL and numbers past the file read 0).
    pub fn sget(&self, reg: usize) -> u32 {
        if reg == sreg::NULL {
            0
        } else {
            self.s.get(reg).copied().unwrap_or(0)
        }
    }

    /// Writes scalar register `reg` (NULL and numbers past the file drop the write).
    pub fn sset(&mut self, reg: usize, value: u32) {
        if reg != sreg::NULL {
            if let Some(r) = self.s.get_mut(reg) {
                *r = value;
            }
        }
    }

    /// Reads VGPR `reg` of `lane` (registers past v255 read 0).
    pub fn vget(&self, reg: usize, lane: usize) -> u32 {
        self.v.get(reg * 64 + lane).copied().unwrap_or(0)
    }

    /// Writes VGPR `reg` of `lane`.
    pub fn vset(&mut self, reg: usize, lane: usize, value: u32) {
        if let Some(r) = self.v.get_mut(reg * 64 + lane) {
            *r = value;
        }
    }

    /// Is `lane` active in EXEC?
    pub fn active(&self, lane: usize) -> bool {
        self.exec() >> lane & 1 == 1
    }
}
