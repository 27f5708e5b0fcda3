//! One wave's architectural state and register access by decoded operand.

use crate::EmuError;
use hx_isa::{Reg, RegClass};

pub use hx_sem::operands::constant_value;

/// Where a wave is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveStatus {
    Running,
    /// Waiting at a workgroup barrier.
    AtBarrier,
    Done,
}

/// Number of SGPRs modelled (s0..s105 on GFX12.5, s0..s101 on GFX9; the rest are named registers).
pub const NUM_SGPRS: usize = 106;

#[derive(Debug, Clone)]
pub struct Wave {
    /// 32 (gfx1250) or 64 (gfx942/gfx950).
    pub lanes: usize,
    pub sgpr: [u32; NUM_SGPRS],
    pub vcc: u64,
    pub exec: u64,
    pub scc: bool,
    pub m0: u32,
    pub ttmp: [u32; 16],
    /// VGPRs, register-major: `vgpr[r * lanes + lane]`.
    pub vgpr: Vec<u32>,
    pub num_vgprs: usize,
    /// Accumulation registers (gfx942/gfx950), same layout.
    pub agpr: Vec<u32>,
    pub num_agprs: usize,
    /// Byte address of the next instruction.
    pub pc: u64,
    pub status: WaveStatus,
    /// Index of the wave in its workgroup.
    pub id_in_group: u32,
    /// The MODE hardware register (rounding, denormals, ...), as s_getreg/s_setreg see it.
    pub mode: u32,
    /// gfx1250 `s_set_vgpr_msb` state: two VGPR index MSBs per operand slot (`hx_isa::msb`).
    pub vgpr_msb: u8,
    /// gfx1250 load destinations not yet waited for (pending.rs).
    pub in_flight: Vec<crate::pending::InFlight>,
    pub next_load: u64,
}

impl Wave {
    pub fn new(lanes: usize, num_vgprs: usize, num_agprs: usize) -> Wave {
        Wave {
            lanes,
            sgpr: [0; NUM_SGPRS],
            vcc: 0,
            exec: 0,
            scc: false,
            m0: 0,
            ttmp: [0; 16],
            vgpr: vec![0; num_vgprs * lanes],
            num_vgprs,
            agpr: vec![0; num_agprs * lanes],
            num_agprs,
            pc: 0,
            status: WaveStatus::Running,
            id_in_group: 0,
            mode: 0,
            vgpr_msb: 0,
            in_flight: Vec::new(),
            next_load: 0,
        }
    }

    /// Mask of the lanes that exist in this wave size.
    pub fn lane_mask(&self) -> u64 {
        if self.lanes == 64 { u64::MAX } else { (1u64 << self.lanes) - 1 }
    }

    pub fn lane_active(&self, lane: usize) -> bool {
        self.exec >> lane & 1 != 0
    }

    pub fn v(&self, reg: usize, lane: usize) -> Result<u32, EmuError> {
        if reg >= self.num_vgprs {
            return Err(EmuError::Register(format!("v{reg} is beyond the {} VGPRs allocated", self.num_vgprs)));
        }
        Ok(self.vgpr[reg * self.lanes + lane])
    }

    pub fn set_v(&mut self, reg: usize, lane: usize, value: u32) -> Result<(), EmuError> {
        if reg >= self.num_vgprs {
            return Err(EmuError::Register(format!("v{reg} is beyond the {} VGPRs allocated", self.num_vgprs)));
        }
        self.vgpr[reg * self.lanes + lane] = value;
        Ok(())
    }

    fn a(&self, reg: usize, lane: usize) -> Result<u32, EmuError> {
        if reg >= self.num_agprs {
            return Err(EmuError::Register(format!("a{reg} is beyond the {} AGPRs allocated", self.num_agprs)));
        }
        Ok(self.agpr[reg * self.lanes + lane])
    }

    fn set_a(&mut self, reg: usize, lane: usize, value: u32) -> Result<(), EmuError> {
        if reg >= self.num_agprs {
            return Err(EmuError::Register(format!("a{reg} is beyond the {} AGPRs allocated", self.num_agprs)));
        }
        self.agpr[reg * self.lanes + lane] = value;
        Ok(())
    }

    /// One 32-bit scalar register (`index` counts 32-bit halves within named registers).
    fn scalar_dword(&self, class: RegClass, index: usize) -> Result<u32, EmuError> {
        Ok(match class {
            RegClass::Sgpr => *self.sgpr.get(index).ok_or_else(|| EmuError::Register(format!("s{index} does not exist")))?,
            RegClass::Vcc => (self.vcc >> (32 * (index & 1))) as u32,
            RegClass::Exec => (self.exec >> (32 * (index & 1))) as u32,
            RegClass::M0 => self.m0,
            RegClass::Null => 0,
            RegClass::Ttmp => *self.ttmp.get(index).ok_or_else(|| EmuError::Register(format!("ttmp{index} does not exist")))?,
            RegClass::Scc => self.scc as u32,
            RegClass::Vccz => (self.vcc & self.lane_mask() == 0) as u32,
            RegClass::Execz => (self.exec & self.lane_mask() == 0) as u32,
            RegClass::SharedBase if index & 1 == 1 => crate::SHARED_APERTURE_HI,
            RegClass::PrivateBase if index & 1 == 1 => crate::PRIVATE_APERTURE_HI,
            RegClass::SharedBase | RegClass::PrivateBase => 0,
            RegClass::SharedLimit if index & 1 == 1 => crate::SHARED_APERTURE_HI,
            RegClass::PrivateLimit if index & 1 == 1 => crate::PRIVATE_APERTURE_HI,
            RegClass::SharedLimit | RegClass::PrivateLimit => u32::MAX,
            RegClass::FlatScratchBase => (crate::FLAT_SCRATCH_BASE >> (32 * (index & 1))) as u32,
            other => return Err(EmuError::Register(format!("reading {other:?} is not modelled"))),
        })
    }

    fn set_scalar_dword(&mut self, class: RegClass, index: usize, value: u32) -> Result<(), EmuError> {
        let set_half = |r: &mut u64, half: usize| {
            let sh = 32 * (half & 1);
            *r = (*r & !(0xffff_ffffu64 << sh)) | (value as u64) << sh;
        };
        match class {
            RegClass::Sgpr => {
                *self.sgpr.get_mut(index).ok_or_else(|| EmuError::Register(format!("s{index} does not exist")))? = value
            }
            RegClass::Vcc => set_half(&mut self.vcc, index),
            RegClass::Exec => set_half(&mut self.exec, index),
            RegClass::M0 => self.m0 = value,
            RegClass::Null => {}
            RegClass::Ttmp => {
                *self.ttmp.get_mut(index).ok_or_else(|| EmuError::Register(format!("ttmp{index} does not exist")))? = value
            }
            other => return Err(EmuError::Register(format!("writing {other:?} is not modelled"))),
        }
        // A wave32 has no upper half of its masks.
        if self.lanes == 32 {
            self.exec &= 0xffff_ffff;
        }
        Ok(())
    }

    /// Reads a scalar register operand of up to 2 dwords (wider ones through `read_sgprs`).
    pub fn read_sreg(&self, r: Reg) -> Result<u64, EmuError> {
        let lo = self.scalar_dword(r.class, r.index as usize)? as u64;
        if r.dwords >= 2 {
            let hi = self.scalar_dword(r.class, r.index as usize + 1)? as u64;
            return Ok(lo | hi << 32);
        }
        Ok(lo)
    }

    pub fn write_sreg(&mut self, r: Reg, value: u64) -> Result<(), EmuError> {
        self.set_scalar_dword(r.class, r.index as usize, value as u32)?;
        if r.dwords >= 2 {
            self.set_scalar_dword(r.class, r.index as usize + 1, (value >> 32) as u32)?;
        }
        Ok(())
    }

    /// `count` consecutive SGPRs from `first` (SMEM data, buffer descriptors).
    pub fn read_sgprs(&self, r: Reg) -> Result<Vec<u32>, EmuError> {
        (0..r.dwords as usize).map(|i| self.scalar_dword(r.class, r.index as usize + i)).collect()
    }

    pub fn write_sgprs(&mut self, r: Reg, values: &[u32]) -> Result<(), EmuError> {
        for (i, &v) in values.iter().enumerate() {
            self.set_scalar_dword(r.class, r.index as usize + i, v)?;
        }
        Ok(())
    }

    /// Reads a vector-register operand (VGPR or AGPR) of one lane, up to 2 dwords.
    pub fn read_vreg(&self, r: Reg, lane: usize) -> Result<u64, EmuError> {
        let get = |i: usize| match r.class {
            RegClass::Vgpr => self.v(r.index as usize + i, lane),
            RegClass::Agpr => self.a(r.index as usize + i, lane),
            _ => Err(EmuError::Register(format!("{:?} is not a vector register", r.class))),
        };
        let lo = get(0)? as u64;
        Ok(if r.dwords >= 2 { lo | (get(1)? as u64) << 32 } else { lo })
    }

    pub fn write_vreg_dwords(&mut self, r: Reg, lane: usize, values: &[u32]) -> Result<(), EmuError> {
        for (i, &v) in values.iter().enumerate() {
            match r.class {
                RegClass::Vgpr => self.set_v(r.index as usize + i, lane, v)?,
                RegClass::Agpr => self.set_a(r.index as usize + i, lane, v)?,
                _ => return Err(EmuError::Register(format!("{:?} is not a vector register", r.class))),
            }
        }
        Ok(())
    }

    pub fn read_vreg_dwords(&self, r: Reg, lane: usize) -> Result<Vec<u32>, EmuError> {
        (0..r.dwords as usize)
            .map(|i| match r.class {
                RegClass::Vgpr => self.v(r.index as usize + i, lane),
                RegClass::Agpr => self.a(r.index as usize + i, lane),
                _ => Err(EmuError::Register(format!("{:?} is not a vector register", r.class))),
            })
            .collect()
    }
}
