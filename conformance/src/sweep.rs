//! Exhaustive sweeps: every input of a unary float operation (2^32 for a 32-bit source, 2^16 for a 16-bit
//! one) run on a Vulkan device through the recompiler's sweep module ([`recompiler::sweep`]) and compared,
//! bit for bit, with the model's float library.
//!
//! The range can be cut into shards (`--shard K/N`, K from 1); each shard's result is a JSON file
//! ([`SweepResult`]) and [`merge`] checks that a set of them covers the whole input space exactly once.
//! The device computes one chunk while the host compares the previous one on every core.

use driver::{BufferSpec, ComputeJob, Context};
use measurements::FloatMode;
use recompiler::sweep::{self, Unary, LOCAL_SIZE};
use reference_model::float as fp;
use reference_model::float::Mode;
use reference_model::isa::Op;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Inputs per dispatch.
const CHUNK: u64 = 1 << 24;
/// Invocations per grid row (4,096 workgroups of [`LOCAL_SIZE`]; every device allows 65,535).
const ROW: u64 = 1 << 20;
/// Divergences kept in detail per result.
pub const KEEP: usize = 64;

/// The model's result for one input, in the low bits of a u32 (16-bit results zero-extended).
pub type ModelFn = fn(Mode, u32) -> u32;

/// The model's float-library function of each operation a sweep takes, read as the model's interpreter
/// reads the source (`exec::vfloat`): the low half for 16-bit sources, integers as they are.
pub fn model_fn(op: Op) -> Option<ModelFn> {
    use Op::*;
    let f: ModelFn = match op {
        VFloorF32 => |m, x| fp::floor_f32(m, x),
        VCeilF32 => |m, x| fp::ceil_f32(m, x),
        VTruncF32 => |m, x| fp::trunc_f32(m, x),
        VRndneF32 => |m, x| fp::rndne_f32(m, x),
        VFractF32 => |m, x| fp::fract_f32(m, x),
        VFrexpMantF32 => |m, x| fp::frexp_mant_f32(m, x),
        VFrexpExpI32F32 => |m, x| fp::frexp_exp_i32_f32(m, x) as u32,
        VRcpF32 => |m, x| fp::rcp_f32(m, x),
        VRcpIflagF32 => |m, x| fp::rcp_iflag_f32(m, x),
        VSqrtF32 => |m, x| fp::sqrt_f32(m, x),
        VRsqF32 => |m, x| fp::rsq_f32(m, x),
        VExpF32 => |m, x| fp::exp_f32(m, x),
        VLogF32 => |m, x| fp::log_f32(m, x),
        VSinF32 => |m, x| fp::sin_f32(m, x),
        VCosF32 => |m, x| fp::cos_f32(m, x),
        VCvtF32I32 => |m, x| fp::cvt_f32_i32(m, x as i32),
        VCvtF32U32 => |m, x| fp::cvt_f32_u32(m, x),
        VCvtF32Ubyte0 => |_, x| fp::cvt_f32_ubyte(x, 0),
        VCvtF32Ubyte1 => |_, x| fp::cvt_f32_ubyte(x, 1),
        VCvtF32Ubyte2 => |_, x| fp::cvt_f32_ubyte(x, 2),
        VCvtF32Ubyte3 => |_, x| fp::cvt_f32_ubyte(x, 3),
        VCvtOffF32I4 => |_, x| fp::cvt_off_f32_i4(x),
        VCvtI32F32 => |m, x| fp::cvt_i32_f32(m, x) as u32,
        VCvtU32F32 => |m, x| fp::cvt_u32_f32(m, x),
        VCvtFlrI32F32 => |m, x| fp::cvt_flr_i32_f32(m, x) as u32,
        VCvtRpiI32F32 => |m, x| fp::cvt_rpi_i32_f32(m, x) as u32,
        VCvtF16F32 => |m, x| fp::cvt_f16_f32(m, x) as u32,
        VCvtF32F16 => |m, x| fp::cvt_f32_f16(m, x as u16),
        VFloorF16 => |m, x| fp::floor_f16(m, x as u16) as u32,
        VCeilF16 => |m, x| fp::ceil_f16(m, x as u16) as u32,
        VTruncF16 => |m, x| fp::trunc_f16(m, x as u16) as u32,
        VRndneF16 => |m, x| fp::rndne_f16(m, x as u16) as u32,
        VFractF16 => |m, x| fp::fract_f16(m, x as u16) as u32,
        VFrexpMantF16 => |m, x| fp::frexp_mant_f16(m, x as u16) as u32,
        VFrexpExpI16F16 => |m, x| fp::frexp_exp_i16_f16(m, x as u16) as u16 as u32,
        VRcpF16 => |m, x| fp::rcp_f16(m, x as u16) as u32,
        VSqrtF16 => |m, x| fp::sqrt_f16(m, x as u16) as u32,
        VRsqF16 => |m, x| fp::rsq_f16(m, x as u16) as u32,
        VExpF16 => |m, x| fp::exp_f16(m, x as u16) as u32,
        VLogF16 => |m, x| fp::log_f16(m, x as u16) as u32,
        VSinF16 => |m, x| fp::sin_f16(m, x as u16) as u32,
        VCosF16 => |m, x| fp::cos_f16(m, x as u16) as u32,
        VCvtF16I16 => |m, x| fp::cvt_f16_i16(m, x as u16 as i16) as u32,
        VCvtF16U16 => |m, x| fp::cvt_f16_u16(m, x as u16) as u32,
        VCvtI16F16 => |m, x| fp::cvt_i16_f16(m, x as u16) as u16 as u32,
        VCvtU16F16 => |m, x| fp::cvt_u16_f16(m, x as u16) as u32,
        _ => return None,
    };
    Some(f)
}

/// The operation named `name` (a mnemonic such as `v_fract_f32`, with or without `_e32`) when a sweep takes
/// it; the error lists the ones it takes.
pub fn parse_op(name: &str) -> Result<Op, String> {
    let base = name.trim().to_ascii_lowercase();
    let base = base.strip_suffix("_e32").unwrap_or(&base);
    let ops = sweep::unary_ops();
    ops.iter()
        .copied()
        .find(|op| op.mnemonic() == base && model_fn(*op).is_some())
        .ok_or_else(|| {
            let names: Vec<&str> = ops.iter().map(|o| o.mnemonic()).collect();
            format!(
                "`{}` is not an operation a sweep takes; these are: {}",
                measurements::hex::truncate(name),
                names.join(", ")
            )
        })
}

/// Parses `FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL` (`c0/0/1/0`), the notation of reports.
pub fn parse_mode(text: &str) -> Result<FloatMode, String> {
    let parts: Vec<&str> = text.split('/').collect();
    let [fm, ieee, dx10, ovfl] = parts[..] else {
        return Err(format!(
            "mode `{}` is not FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL (e.g. c0/0/1/0)",
            measurements::hex::truncate(text)
        ));
    };
    Ok(FloatMode {
        float_mode: measurements::mode::parse_float_mode(fm)?,
        ieee: measurements::mode::parse_bit("IEEE", ieee)?,
        dx10_clamp: measurements::mode::parse_bit("DX10_CLAMP", dx10)?,
        fp16_ovfl: measurements::mode::parse_bit("FP16_OVFL", ovfl)?,
    })
}

/// Parses `K/N` (1 <= K <= N).
pub fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || {
        format!(
            "shard `{}` is not K/N with 1 <= K <= N (e.g. 3/8)",
            measurements::hex::truncate(text)
        )
    };
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The inputs `[start, end)` of shard `k` of `n` over `total` inputs.
pub fn shard_range(total: u64, k: u64, n: u64) -> (u64, u64) {
    let at = |i: u64| (total as u128 * i as u128 / n as u128) as u64;
    (at(k - 1), at(k))
}

/// One input whose result differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// The source value.
    pub input: u32,
    /// What the backend wrote.
    pub got: u32,
    /// The model's float library result.
    pub want: u32,
}

/// The outcome of one sweep (or shard), as written to `--out`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// The operation's mnemonic.
    pub op: String,
    /// The mode, `c0/0/1/0` notation.
    pub mode: String,
    /// The backend (`vulkan:nvidia-h200`).
    pub backend: String,
    /// All inputs of the operation: 2^32 or 2^16.
    pub total: u64,
    /// First input swept.
    pub start: u64,
    /// One past the last input swept.
    pub end: u64,
    /// Inputs whose result differs from the model's.
    pub divergences: u64,
    /// The first [`KEEP`] of them, ascending.
    pub first: Vec<Divergence>,
    /// Time the device spent in its dispatches (fence to fence), seconds.
    pub device_seconds: f64,
    /// Wall-clock seconds of the sweep, host comparison included.
    pub wall_seconds: f64,
    /// The conformance version and commit that ran it.
    pub tool: String,
}

/// Sweeps `op` over inputs `[start, end)` in `mode` on `ctx` against the model's [`model_fn`]; `progress` is
/// called after every chunk with the inputs done so far.
pub fn run(
    ctx: &Context,
    backend: &str,
    op: Op,
    mode: FloatMode,
    range: (u64, u64),
    progress: &mut dyn FnMut(u64),
) -> Result<SweepResult, String> {
    let model = model_fn(op).ok_or("the model has no float-library function for it")?;
    let rolled = crate::vulkan::rolls_loops(ctx.info());
    run_against(ctx, backend, op, mode, range, model, rolled, progress)
}

/// [`run`] with the expected results from `model` (a test's wrong reference shows that divergences are
/// found and reported), the module's fixed-step computations as loops when `rolled`
/// (`recompiler::Shape::rolled_loops`; [`run`] takes the device's default, [`crate::vulkan::rolls_loops`]).
#[allow(clippy::too_many_arguments)]
pub fn run_against(
    ctx: &Context,
    backend: &str,
    op: Op,
    mode: FloatMode,
    (start, end): (u64, u64),
    model: ModelFn,
    rolled: bool,
    progress: &mut dyn FnMut(u64),
) -> Result<SweepResult, String> {
    let shape: Unary = sweep::unary(op).ok_or("not a sweep operation")?;
    let m = Mode {
        float_mode: mode.float_mode,
        ieee: mode.ieee,
        dx10_clamp: mode.dx10_clamp,
        fp16_ovfl: mode.fp16_ovfl,
    };
    let spirv = sweep::module(op, m.to_hwreg(), rolled)
        .map_err(|r| format!("{}: {}", r.instruction, r.reason))?;
    let total = 1u64 << shape.input_bits;
    if start > end || end > total {
        return Err(format!(
            "range {start}..{end} is outside the {total} inputs"
        ));
    }
    let t0 = Instant::now();
    let mut device = Duration::ZERO;
    let mut divergences = 0u64;
    let mut first = Vec::new();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    std::thread::scope(|scope| -> Result<(), String> {
        let mut pending: Option<std::thread::ScopedJoinHandle<'_, (u64, Vec<Divergence>)>> = None;
        let mut at = start;
        while at < end {
            let n = CHUNK.min(end - at);
            let row = ROW.min(n.div_ceil(LOCAL_SIZE as u64) * LOCAL_SIZE as u64);
            let rows = n.div_ceil(row);
            let words = row * rows;
            let mut push = Vec::with_capacity(8);
            push.extend_from_slice(&(at as u32).to_le_bytes());
            push.extend_from_slice(&(row as u32).to_le_bytes());
            let buffers = [BufferSpec::output(4 * words)];
            let r = ctx
                .run(&ComputeJob {
                    spirv: &spirv,
                    entry: "main",
                    buffers: &buffers,
                    push_constants: &push,
                    workgroups: [(row / LOCAL_SIZE as u64) as u32, rows as u32, 1],
                    required_subgroup_size: None,
                    timeout: Duration::from_secs(60),
                })
                .map_err(|e| format!("{backend}: dispatch at input {at:#x}: {e}"))?;
            device += r.elapsed;
            let bytes = r
                .buffers
                .into_iter()
                .next()
                .flatten()
                .ok_or("the device returned no results")?;
            if let Some(h) = pending.take() {
                let (d, f) = h.join().map_err(|_| "a comparison thread panicked")?;
                divergences += d;
                keep(&mut first, f);
            }
            let base = at;
            pending = Some(scope.spawn(move || compare(&bytes, base, n, model, m, threads)));
            at += n;
            progress(at - start);
        }
        if let Some(h) = pending.take() {
            let (d, f) = h.join().map_err(|_| "a comparison thread panicked")?;
            divergences += d;
            keep(&mut first, f);
        }
        Ok(())
    })?;
    Ok(SweepResult {
        op: op.mnemonic().to_string(),
        mode: mode.canonical(),
        backend: backend.to_string(),
        total,
        start,
        end,
        divergences,
        first,
        device_seconds: device.as_secs_f64(),
        wall_seconds: t0.elapsed().as_secs_f64(),
        tool: String::new(),
    })
}

fn keep(first: &mut Vec<Divergence>, more: Vec<Divergence>) {
    let room = KEEP.saturating_sub(first.len());
    first.extend(more.into_iter().take(room));
}

/// Compares the `n` result words in `bytes` (inputs from `base`) with the model on `threads` threads.
fn compare(
    bytes: &[u8],
    base: u64,
    n: u64,
    model: ModelFn,
    mode: Mode,
    threads: usize,
) -> (u64, Vec<Divergence>) {
    let words = &bytes[..4 * n as usize];
    let per = (n as usize).div_ceil(threads).max(1 << 12);
    std::thread::scope(|s| {
        let parts: Vec<_> = words
            .chunks(4 * per)
            .enumerate()
            .map(|(i, part)| {
                s.spawn(move || {
                    let mut count = 0u64;
                    let mut kept = Vec::new();
                    let first = base + (i * per) as u64;
                    for (j, w) in part.chunks_exact(4).enumerate() {
                        let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                        let input = (first + j as u64) as u32;
                        let want = model(mode, input);
                        if got != want {
                            count += 1;
                            if kept.len() < KEEP {
                                kept.push(Divergence { input, got, want });
                            }
                        }
                    }
                    (count, kept)
                })
            })
            .collect();
        let mut count = 0;
        let mut kept = Vec::new();
        for p in parts {
            let (c, k) = p.join().expect("comparison thread");
            count += c;
            keep(&mut kept, k);
        }
        (count, kept)
    })
}

/// What a set of shard results adds up to.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The operation, mode and backend they share.
    pub op: String,
    /// Mode.
    pub mode: String,
    /// Backend.
    pub backend: String,
    /// Inputs covered (the whole space when complete).
    pub covered: u64,
    /// All inputs.
    pub total: u64,
    /// Sum of divergences.
    pub divergences: u64,
    /// The first divergences of all shards, ascending.
    pub first: Vec<Divergence>,
    /// Sum of device seconds.
    pub device_seconds: f64,
    /// Ranges missing, as `[start, end)`.
    pub gaps: Vec<(u64, u64)>,
}

/// Merges shard results of one sweep: they must share op, mode, backend and input space and not overlap.
pub fn merge(results: &[SweepResult]) -> Result<Merged, String> {
    let Some(r0) = results.first() else {
        return Err("no results to merge".into());
    };
    for r in results {
        if (r.op.as_str(), r.mode.as_str(), r.backend.as_str(), r.total)
            != (
                r0.op.as_str(),
                r0.mode.as_str(),
                r0.backend.as_str(),
                r0.total,
            )
        {
            return Err(format!(
                "results of different sweeps: {} {} on {} and {} {} on {}",
                r0.op, r0.mode, r0.backend, r.op, r.mode, r.backend
            ));
        }
        if r.start > r.end || r.end > r.total {
            return Err(format!(
                "result range {}..{} is outside the {} inputs",
                r.start, r.end, r.total
            ));
        }
    }
    let mut ranges: Vec<(u64, u64)> = results.iter().map(|r| (r.start, r.end)).collect();
    ranges.sort_unstable();
    let mut gaps = Vec::new();
    let mut at = 0;
    for &(s, e) in &ranges {
        if s < at {
            return Err(format!("shards overlap at input {s:#x}"));
        }
        if s > at {
            gaps.push((at, s));
        }
        at = e;
    }
    if at < r0.total {
        gaps.push((at, r0.total));
    }
    let mut first: Vec<Divergence> = results
        .iter()
        .flat_map(|r| r.first.iter().copied())
        .collect();
    first.sort_unstable_by_key(|d| d.input);
    first.truncate(KEEP);
    Ok(Merged {
        op: r0.op.clone(),
        mode: r0.mode.clone(),
        backend: r0.backend.clone(),
        covered: ranges.iter().map(|(s, e)| e - s).sum(),
        total: r0.total,
        divergences: results.iter().map(|r| r.divergences).sum(),
        first,
        device_seconds: results.iter().map(|r| r.device_seconds).sum(),
        gaps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sweep_operation_has_a_model_function() {
        for op in sweep::unary_ops() {
            assert!(model_fn(op).is_some(), "{}", op.mnemonic());
        }
    }

    #[test]
    fn arguments_parse_or_say_why() {
        assert_eq!(parse_op("v_fract_f32").unwrap(), Op::VFractF32);
        assert_eq!(parse_op("V_CVT_I32_F32_e32").unwrap(), Op::VCvtI32F32);
        let e = parse_op("v_add_f32").unwrap_err();
        assert!(e.contains("v_fract_f32"), "{e}");
        assert_eq!(parse_mode("c0/0/1/0").unwrap(), FloatMode::TITLE);
        assert!(parse_mode("c0/0/1").is_err());
        assert!(parse_mode("C0/0/1/0").is_err());
        assert_eq!(parse_shard("3/8").unwrap(), (3, 8));
        for bad in ["0/4", "5/4", "x/4", "4", "1/0"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_cover_the_space_once_and_merge() {
        let total = 1u64 << 32;
        let parts: Vec<(u64, u64)> = (1..=7).map(|k| shard_range(total, k, 7)).collect();
        assert_eq!(parts[0].0, 0);
        assert_eq!(parts[6].1, total);
        assert!(parts.windows(2).all(|w| w[0].1 == w[1].0));
        let result = |(start, end): (u64, u64), d: u64| SweepResult {
            op: "v_fract_f32".into(),
            mode: "c0/0/1/0".into(),
            backend: "vulkan:x".into(),
            total,
            start,
            end,
            divergences: d,
            first: (0..d)
                .map(|i| Divergence {
                    input: (start + i) as u32,
                    got: 1,
                    want: 2,
                })
                .collect(),
            device_seconds: 1.0,
            wall_seconds: 1.0,
            tool: String::new(),
        };
        let all: Vec<SweepResult> = parts
            .iter()
            .enumerate()
            .map(|(i, &p)| result(p, i as u64 % 2))
            .collect();
        let m = merge(&all).unwrap();
        assert_eq!((m.covered, m.total, m.divergences), (total, total, 3));
        assert!(m.gaps.is_empty());
        assert_eq!(m.first.len(), 3);
        let m = merge(&all[1..]).unwrap();
        assert_eq!(m.gaps, vec![parts[0]]);
        let mut twice = all.clone();
        twice.push(all[3].clone());
        assert!(merge(&twice).unwrap_err().contains("overlap"));
        let mut other = all.clone();
        other[2].mode = "c0/1/1/0".into();
        assert!(merge(&other).is_err());
    }
}
