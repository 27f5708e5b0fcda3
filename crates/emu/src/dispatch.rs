//! Running one kernel dispatch: the code object is loaded into global memory, every workgroup is
//! set up with the initial register state its ISA defines, and its waves are scheduled
//! cooperatively (a wave runs until it ends or waits at a barrier) so barriers work.

use crate::exec::{self, Flow};
use crate::memory::{GlobalMemory, LocalMemory};
use crate::stats::Stats;
use crate::wave::{Wave, WaveStatus};
use crate::{Dispatch, EmuError};
use hx_codeobj::descriptor::Generation;
use hx_codeobj::{CodeObject, Kernel};
use hx_isa::{Instruction, Target};
use std::collections::HashMap;

/// Bounds that keep a run finite, and how a work-group's waves take turns.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Instructions one wave may execute before the run stops as runaway.
    pub max_wave_instructions: u64,
    pub schedule: Schedule,
    /// Refuse a launch whose waves race on global memory ([`EmuError::Race`]): a plain store
    /// and another wave's access of the same byte with no barrier of one work-group between
    /// them. Off by default (it keeps a shadow byte map of every access).
    pub races: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_wave_instructions: 10_000_000, schedule: Schedule::UntilBlocked, races: false }
    }
}

/// The order in which the waves of a work-group run. A race-free kernel computes the same under
/// both; a kernel whose waves race on memory may not, which is how a test tells the two apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Each wave in turn runs until it ends or waits at a barrier.
    UntilBlocked,
    /// The waves take one instruction each in turn, as the halves of one wider wave would.
    Lockstep,
}

/// A code object placed in global memory, with decoded instructions cached by address.
pub struct LoadedCode {
    pub target: Target,
    pub base: u64,
    pub image: Vec<u8>,
    cache: HashMap<u64, Instruction>,
}

impl LoadedCode {
    /// No code (unit tests that step single instructions).
    #[cfg(test)]
    pub(crate) fn empty(target: Target) -> LoadedCode {
        LoadedCode { target, base: 0, image: Vec::new(), cache: HashMap::new() }
    }

    /// Maps the PT_LOAD segments of `co` into `mem` (as the runtime loader does).
    pub fn load(co: &CodeObject, mem: &mut GlobalMemory) -> Result<LoadedCode, EmuError> {
        let target = match co.processor() {
            Some("gfx1250") => Target::Gfx1250,
            Some("gfx942") => Target::Gfx942,
            Some("gfx950") => Target::Gfx950,
            _ => return Err(EmuError::Launch(format!("cannot emulate {}", co.target_id()))),
        };
        let loads: Vec<_> = co.program_headers.iter().filter(|p| p.p_type == 1).collect();
        let size = loads.iter().map(|p| p.vaddr.saturating_add(p.memsz)).max().unwrap_or(0);
        if size > 1 << 30 {
            return Err(EmuError::Launch(format!("code object image of {size} bytes is too large")));
        }
        let mut image = vec![0u8; size as usize];
        for p in loads {
            let src = p.offset.checked_add(p.filesz).and_then(|end| co.bytes.get(p.offset as usize..end as usize)).ok_or_else(|| {
                EmuError::Launch(format!("segment at file offset {:#x} is outside the file", p.offset))
            })?;
            // A segment's file image larger than its memory image (found by fuzzing) is refused.
            let dst = p.vaddr.checked_add(p.filesz).and_then(|end| image.get_mut(p.vaddr as usize..end as usize)).ok_or_else(|| {
                EmuError::Launch(format!("segment at {:#x}: {} file bytes do not fit its {} bytes in memory", p.vaddr, p.filesz, p.memsz))
            })?;
            dst.copy_from_slice(src);
        }
        let base = mem.alloc_code(image.clone());
        // PF_X segments: instructions, not data.
        for p in co.program_headers.iter().filter(|p| p.p_type == 1 && p.flags & 1 != 0 && p.memsz > 0) {
            mem.execute_only(base + p.vaddr, base + p.vaddr + p.memsz);
        }
        Ok(LoadedCode { target, base, image, cache: HashMap::new() })
    }

    /// The instruction at device address `pc`.
    pub fn fetch(&mut self, pc: u64) -> Result<Instruction, EmuError> {
        if let Some(i) = self.cache.get(&pc) {
            return Ok(*i);
        }
        let off = pc.checked_sub(self.base).filter(|&o| o < self.image.len() as u64).ok_or(EmuError::PcOutOfCode { pc })?;
        let inst = hx_isa::decode(self.target, &self.image, off as usize)
            .map_err(|e| EmuError::Decode { pc, message: e.to_string() })?;
        if inst.invalid_register() {
            return Err(EmuError::Decode { pc, message: format!("{}: a misaligned register tuple, which the hardware does not define", inst.text()) });
        }
        self.cache.insert(pc, inst);
        Ok(inst)
    }
}

/// Shared state of one workgroup's execution.
pub struct Group<'a> {
    pub mem: &'a mut GlobalMemory,
    pub lds: LocalMemory,
    /// Per wave, per lane private memory.
    pub scratch: Vec<Vec<LocalMemory>>,
    pub code: &'a mut LoadedCode,
    pub stats: &'a mut Stats,
    pub fp_mode: crate::alu::FpMode,
    pub target: Target,
    /// A wave has signalled the work-group barrier in the current phase
    /// (`s_barrier_signal_isfirst` returns SCC = 1 only to the first).
    pub barrier_signalled: bool,
}

/// Runs `kernel` of `co` over the whole grid. `kernarg` is the kernarg segment (see
/// [`crate::kernarg::build`]). Returns the dynamic instruction counts.
pub fn run_kernel(
    co: &CodeObject,
    kernel: &str,
    mem: &mut GlobalMemory,
    dispatch: &Dispatch,
    kernarg: &[u8],
    limits: &Limits,
) -> Result<Stats, EmuError> {
    let k = co.kernel(kernel).ok_or_else(|| EmuError::Launch(format!("no kernel {kernel} in the code object")))?;
    let generation = co.generation().ok_or_else(|| EmuError::Launch(format!("unknown generation of {}", co.target_id())))?;
    if dispatch.block.iter().any(|&b| b == 0) || dispatch.grid.iter().any(|&g| g == 0) {
        return Err(EmuError::Launch(format!("empty grid {:?} or block {:?}", dispatch.grid, dispatch.block)));
    }
    let group_items: u64 = dispatch.block.iter().map(|&b| b as u64).product();
    if group_items > 1024 {
        return Err(EmuError::Launch(format!("workgroup of {group_items} work-items exceeds 1024")));
    }
    let d = &k.descriptor;
    let lds = d.group_segment_fixed_size as u64 + dispatch.dynamic_lds as u64;
    if let Some((cpu, limit)) = co.processor().and_then(|p| hx_codeobj::lds_limit(p).map(|l| (p, l))) {
        if lds > limit {
            return Err(EmuError::Launch(format!(
                "kernel {kernel}: {lds} bytes of LDS per work-group ({} static + {} dynamic) exceed {cpu}'s {limit}",
                d.group_segment_fixed_size, dispatch.dynamic_lds
            )));
        }
    }
    if d.kernel_code_properties & (1 << 11) != 0 {
        return Err(EmuError::Launch(format!("kernel {kernel} uses a dynamic stack, which is not modelled")));
    }
    let rsrc1 = d.compute_pgm_rsrc1;
    let fp_mode = crate::alu::FpMode::from_rsrc1(rsrc1, generation == Generation::Gfx125 || generation == Generation::Gfx120)
        .map_err(|e| EmuError::Launch(format!("kernel {kernel}: {e}")))?;
    let mut code = LoadedCode::load(co, mem)?;
    let kernarg_addr = mem.alloc_system(kernarg.to_vec());
    let packet = mem.alloc_system(dispatch_packet(dispatch, d, kernarg_addr).to_vec());
    let system = SystemPointers { kernarg: kernarg_addr, dispatch_packet: packet };
    let mut stats = Stats::default();
    let lanes = if generation == Generation::Gfx125 { 32 } else { 64 };
    let counts = dispatch.workgroup_counts();
    mem.check_races(limits.races);
    let mut run_groups = || -> Result<(), EmuError> {
        for wz in 0..counts[2] {
            for wy in 0..counts[1] {
                for wx in 0..counts[0] {
                    let wg = [wx, wy, wz];
                    // Partial workgroups at the grid's edge (HSA semantics).
                    let size = [0, 1, 2].map(|i| (dispatch.grid[i] - wg[i] * dispatch.block[i]).min(dispatch.block[i]));
                    run_group(co, k, generation, lanes, wg, size, dispatch, system, mem, &mut code, &mut stats, fp_mode, limits)?;
                }
            }
        }
        Ok(())
    };
    let result = run_groups();
    // Off again whatever happened: the host reads results unchecked.
    mem.check_races(false);
    result.map(|()| stats)
}

/// The VGPRs and AGPRs of each lane. gfx90a-family (gfx942, gfx950): one unified file of
/// the descriptor's VGPR allocation, whose first ACCUM_OFFSET registers (COMPUTE_PGM_RSRC3 bits
/// 5:0, in units of 4, minus one) are the VGPRs and the rest the AGPRs a0.. (AMDGPUUsage).
fn register_files(d: &hx_codeobj::descriptor::KernelDescriptor, generation: Generation) -> Result<(usize, usize), String> {
    let total = d.vgpr_allocation(generation) as usize;
    if generation != Generation::Gfx90a {
        return Ok((total, 0));
    }
    let accum_offset = ((d.compute_pgm_rsrc3 & 0x3f) as usize + 1) * 4;
    if accum_offset > total {
        return Err(format!("ACCUM_OFFSET {accum_offset} exceeds the {total} allocated vector registers"));
    }
    Ok((accum_offset, total - accum_offset))
}

#[allow(clippy::too_many_arguments)]
fn run_group(
    co: &CodeObject,
    k: &Kernel,
    generation: Generation,
    lanes: usize,
    wg: [u32; 3],
    size: [u32; 3],
    dispatch: &Dispatch,
    system: SystemPointers,
    mem: &mut GlobalMemory,
    code: &mut LoadedCode,
    stats: &mut Stats,
    fp_mode: crate::alu::FpMode,
    limits: &Limits,
) -> Result<(), EmuError> {
    let d = &k.descriptor;
    let items = (size[0] * size[1] * size[2]) as usize;
    let nwaves = items.div_ceil(lanes);
    let (vgprs, agprs) = register_files(d, generation).map_err(|e| EmuError::Launch(format!("kernel {}: {e}", k.name)))?;
    let lds_size = d.group_segment_fixed_size as usize + dispatch.dynamic_lds as usize;
    let private = d.private_segment_fixed_size as usize;
    // ENABLE_VGPR_WORKITEM_ID: how many IDs the hardware writes into v0 (x; x, y; x, y, z); the
    // fields of the others read 0 (the backends use v0 unmasked as x in a kernel with x only).
    let ids = d.field(generation, "ENABLE_VGPR_WORKITEM_ID").unwrap_or(2);
    let id_mask = match ids {
        0 => 0x3ff,
        1 => 0xf_ffff,
        _ => 0x3fff_ffff,
    };
    let mut waves = Vec::with_capacity(nwaves);
    for w in 0..nwaves {
        let mut wave = Wave::new(lanes, vgprs, agprs);
        wave.id_in_group = w as u32;
        wave.pc = code.base + k.code_addr;
        for lane in 0..lanes {
            let i = w * lanes + lane;
            if i >= items {
                continue;
            }
            wave.exec |= 1 << lane;
            let (x, y, z) = (i as u32 % size[0], i as u32 / size[0] % size[1], i as u32 / (size[0] * size[1]));
            // Work-item IDs packed in v0: x | y << 10 | z << 20 (gfx90a+ and GFX11+), the enabled ones.
            wave.set_v(0, lane, (x | y << 10 | z << 20) & id_mask)?;
        }
        init_sgprs(&mut wave, k, generation, wg, system, mem)?;
        waves.push(wave);
    }
    let mut group = Group {
        mem,
        lds: LocalMemory::new("lds", lds_size),
        scratch: (0..nwaves).map(|_| (0..lanes).map(|_| LocalMemory::new("scratch", private)).collect()).collect(),
        code,
        stats,
        fp_mode,
        target: match generation {
            Generation::Gfx125 => Target::Gfx1250,
            _ if co.processor() == Some("gfx950") => Target::Gfx950,
            _ => Target::Gfx942,
        },
        barrier_signalled: false,
    };
    let mut executed = vec![0u64; nwaves];
    // Barriers the work-group has passed: accesses in different phases are ordered.
    let mut epoch = 0u64;
    loop {
        let mut progressed = false;
        for w in 0..nwaves {
            let mut steps = 0;
            while waves[w].status == WaveStatus::Running {
                if limits.schedule == Schedule::Lockstep && steps == 1 {
                    break;
                }
                steps += 1;
                executed[w] += 1;
                if executed[w] > limits.max_wave_instructions {
                    return Err(EmuError::Runaway { kernel: k.name.clone(), limit: limits.max_wave_instructions });
                }
                let pc = waves[w].pc;
                let offset = pc.wrapping_sub(group.code.base);
                let inst = group.code.fetch(pc).map_err(|e| EmuError::InKernel { kernel: k.name.clone(), offset, cause: Box::new(e) })?;
                group.mem.set_accessor(Some(crate::memory::Accessor { group: wg, wave: w as u32, epoch }));
                let flow = exec::step(&mut waves[w], w, &inst, &mut group).map_err(|e| e.at(&k.name, offset, &inst))?;
                progressed = true;
                match flow {
                    Flow::Next => waves[w].pc = pc + inst.len as u64,
                    Flow::Jump(target) => waves[w].pc = target,
                    Flow::End => waves[w].status = WaveStatus::Done,
                    Flow::Barrier => {
                        waves[w].pc = pc + inst.len as u64;
                        waves[w].status = WaveStatus::AtBarrier;
                    }
                }
            }
        }
        if waves.iter().all(|w| w.status == WaveStatus::Done) {
            return Ok(());
        }
        // Every live wave waits at the barrier: release them all.
        if waves.iter().all(|w| w.status != WaveStatus::Running) {
            for w in waves.iter_mut().filter(|w| w.status == WaveStatus::AtBarrier) {
                w.status = WaveStatus::Running;
            }
            group.barrier_signalled = false;
            epoch += 1;
            continue;
        }
        if !progressed {
            return Err(EmuError::Launch("no wave can make progress".into()));
        }
    }
}

/// Where the dispatch's own memory sits: the kernarg segment and the HSA dispatch packet.
#[derive(Debug, Clone, Copy)]
struct SystemPointers {
    kernarg: u64,
    dispatch_packet: u64,
}

/// The queue pointer's value: an address no buffer is placed at, so that reads through it fault.
const QUEUE_ADDRESS: u64 = 0x7fff_0000_0000;

/// The HSA kernel dispatch packet (`hsa_kernel_dispatch_packet_t`, 64 bytes) the runtime would
/// have written for this launch: header (kernel dispatch type, system-scope acquire and release
/// fences), dimensions, work-group and grid sizes, segment sizes, kernarg address. The kernel
/// object and completion signal read 0.
fn dispatch_packet(dispatch: &Dispatch, d: &hx_codeobj::descriptor::KernelDescriptor, kernarg: u64) -> [u8; 64] {
    let mut p = [0u8; 64];
    let header: u16 = 2 | 1 << 8 | 2 << 9 | 2 << 11;
    let dims = if dispatch.grid[2] > 1 || dispatch.block[2] > 1 {
        3u16
    } else if dispatch.grid[1] > 1 || dispatch.block[1] > 1 {
        2
    } else {
        1
    };
    p[0..2].copy_from_slice(&header.to_le_bytes());
    p[2..4].copy_from_slice(&dims.to_le_bytes());
    for i in 0..3 {
        p[4 + 2 * i..6 + 2 * i].copy_from_slice(&(dispatch.block[i] as u16).to_le_bytes());
        p[12 + 4 * i..16 + 4 * i].copy_from_slice(&dispatch.grid[i].to_le_bytes());
    }
    p[24..28].copy_from_slice(&d.private_segment_fixed_size.to_le_bytes());
    p[28..32].copy_from_slice(&(d.group_segment_fixed_size.saturating_add(dispatch.dynamic_lds)).to_le_bytes());
    p[40..48].copy_from_slice(&kernarg.to_le_bytes());
    p
}

/// User and system SGPRs, and the architected registers of GFX12.5 (AMDGPUUsage, "Initial
/// Kernel Execution State").
fn init_sgprs(
    wave: &mut Wave,
    k: &Kernel,
    generation: Generation,
    wg: [u32; 3],
    system: SystemPointers,
    mem: &GlobalMemory,
) -> Result<(), EmuError> {
    let kernarg_addr = system.kernarg;
    let d = &k.descriptor;
    let props = d.kernel_code_properties;
    let mut s = 0usize;
    let put = |wave: &mut Wave, s: &mut usize, v: u32| -> Result<(), EmuError> {
        *wave.sgpr.get_mut(*s).ok_or_else(|| EmuError::Launch("user SGPRs overflow".into()))? = v;
        *s += 1;
        Ok(())
    };
    let unsupported = |what: &str| EmuError::Launch(format!("kernel {} asks for {what}, which is not modelled", k.name));
    if props & 1 != 0 {
        return Err(unsupported("a private segment buffer descriptor"));
    }
    if props & 2 != 0 {
        put(wave, &mut s, system.dispatch_packet as u32)?;
        put(wave, &mut s, (system.dispatch_packet >> 32) as u32)?;
    }
    if props & 4 != 0 {
        // The queue pointer points at nothing the emulator models: a kernel that only receives it
        // (llc without the attributor enables it) runs; one that reads through it faults, by name.
        put(wave, &mut s, QUEUE_ADDRESS as u32)?;
        put(wave, &mut s, (QUEUE_ADDRESS >> 32) as u32)?;
    }
    if props & 8 != 0 {
        put(wave, &mut s, kernarg_addr as u32)?;
        put(wave, &mut s, (kernarg_addr >> 32) as u32)?;
    }
    if props & 16 != 0 {
        put(wave, &mut s, 0)?;
        put(wave, &mut s, 0)?;
    }
    if props & 32 != 0 {
        return Err(unsupported("flat scratch init"));
    }
    if props & 64 != 0 {
        put(wave, &mut s, d.private_segment_fixed_size)?;
    }
    // Preloaded kernargs follow, up to USER_SGPR_COUNT.
    let (len, offset) = d.kernarg_preload();
    for i in 0..len {
        let v = mem.read_u32(kernarg_addr + 4 * (offset + i) as u64)?;
        put(wave, &mut s, v)?;
    }
    let user = d.user_sgpr_count(generation) as usize;
    if s > user {
        return Err(EmuError::Launch(format!("kernel {}: {s} user SGPRs enabled but USER_SGPR_COUNT is {user}", k.name)));
    }
    let mut s = user;
    let rsrc2 = d.compute_pgm_rsrc2;
    if generation == Generation::Gfx125 {
        // Architected workgroup IDs; TTMP6 = 0 and IB_STS2 cluster bits 0: not in a cluster.
        // TTMP7 holds z in its high half only when the descriptor enables the z ID (LLVM reads
        // the whole of TTMP7 as y in a kernel without it).
        // TTMP8[29:25]: the wave's index in its work-group (llvm.amdgcn.wave.id; Triton's gfx1250
        // code reads it with `s_bfe_u32 s, ttmp8, 0x50019`). Its other bits read 0.
        wave.ttmp[8] = (wave.id_in_group & 0x1f) << 25;
        wave.ttmp[9] = wg[0];
        wave.ttmp[7] = if rsrc2 >> 9 & 1 != 0 { wg[1] | wg[2] << 16 } else { wg[1] };
        wave.ttmp[6] = 0;
    } else {
        for (bit, id) in [(7, wg[0]), (8, wg[1]), (9, wg[2])] {
            if rsrc2 >> bit & 1 != 0 {
                put(wave, &mut s, id)?;
            }
        }
        if rsrc2 >> 10 & 1 != 0 {
            return Err(unsupported("workgroup info"));
        }
        if rsrc2 & 1 != 0 {
            // Private segment wave byte offset: scratch is modelled per lane from 0.
            put(wave, &mut s, 0)?;
        }
    }
    Ok(())
}
