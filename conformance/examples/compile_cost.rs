//! What the host compiler pays per guest instruction kind: the time a Vulkan device takes to compile and run a
//! recompiled kernel of N copies of one instruction pattern, for N = 0, 8, 16, 32, 64, with the SPIR-V size.
//!
//! `cargo run --release -p conformance --example compile_cost [-- DEVICE]` (DEVICE as `--backend
//! vulkan:DEVICE`; default lavapipe or the only device; needs llvm-mc-19 and llvm-objcopy-19). Set
//! `MESA_SHADER_CACHE_DISABLE=true` on Mesa drivers, or their disk cache answers the second run. Patterns, in
//! wave32 on v10..v13 after a load: `int` (v_add_nc_u32 + v_xor_b32), `float` (v_add_f32 + v_mul_f32),
//! `compare` (v_cmp_gt_u32 into VCC + v_cndmask_b32: a ballot, so a segment cut each), `dpp` (v_mov_b32 with
//! quad_perm: an exchange, a cut each) and `readlane` (v_readlane_b32 + v_add_nc_u32). The per-copy cost is
//! the slope; the time at N = 0 is the kernel frame's (its loads and stores, the store unit).

use conformance::vulkan::VulkanBackend;
use measurements::job::{Backend, Job};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

/// Assembles `src` for gfx1013 wave32 with llvm-mc-19 and returns the .text words.
fn assemble(src: &str) -> Result<Vec<u32>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (obj, bin) = (dir.path().join("k.o"), dir.path().join("k.bin"));
    let mut mc = Command::new("llvm-mc-19")
        .args([
            "-triple=amdgcn",
            "-mcpu=gfx1013",
            "-mattr=+wavefrontsize32",
            "-filetype=obj",
            "-o",
        ])
        .arg(&obj)
        .arg("-")
        .stdin(Stdio::piped())
        .spawn()
        .map_err(|e| format!("llvm-mc-19: {e}"))?;
    mc.stdin
        .take()
        .ok_or("llvm-mc-19: no stdin")?
        .write_all(src.as_bytes())
        .map_err(|e| e.to_string())?;
    if !mc.wait().map_err(|e| e.to_string())?.success() {
        return Err("llvm-mc-19 failed".into());
    }
    let ok = Command::new("llvm-objcopy-19")
        .args(["-O", "binary", "--only-section=.text"])
        .arg(&obj)
        .arg(&bin)
        .status()
        .map_err(|e| format!("llvm-objcopy-19: {e}"))?;
    if !ok.success() {
        return Err("llvm-objcopy-19 failed".into());
    }
    let bytes = std::fs::read(&bin).map_err(|e| e.to_string())?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Copy `i` of pattern `kind`.
fn copy(kind: &str, i: usize) -> String {
    let r = |k: usize| 10 + (i + k) % 4;
    match kind {
        "int" => format!(
            "v_add_nc_u32 v{}, v{}, v{}\nv_xor_b32 v{}, v12, v13\n",
            r(0),
            r(1),
            r(3),
            r(2)
        ),
        "float" => format!(
            "v_add_f32 v{}, v{}, v{}\nv_mul_f32 v{}, v12, v13\n",
            r(0),
            r(1),
            r(3),
            r(2)
        ),
        "compare" => format!(
            "v_cmp_gt_u32 vcc_lo, v{}, v{}\nv_cndmask_b32 v{}, v12, v13, vcc_lo\n",
            r(0),
            r(1),
            r(2)
        ),
        "dpp" => format!(
            "v_mov_b32_dpp v{}, v{} quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n",
            r(0),
            r(1)
        ),
        _ => format!(
            "v_readlane_b32 s{}, v{}, {}\nv_add_nc_u32 v{}, s{}, v{}\n",
            20 + i % 4,
            r(0),
            i % 32,
            r(1),
            20 + i % 4,
            r(2)
        ),
    }
}

fn main() -> Result<(), String> {
    let device = std::env::args().nth(1);
    let backend = VulkanBackend::open(device.as_deref(), Default::default())?;
    println!("device: {}", backend.name());
    for kind in ["int", "float", "compare", "dpp", "readlane"] {
        for n in [0usize, 8, 16, 32, 64] {
            let mut src = String::from(
                "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n",
            );
            for i in 0..n {
                src.push_str(&copy(kind, i));
            }
            src.push_str("v_lshlrev_b32 v1, 6, v0\nbuffer_store_dwordx4 v[10:13], v1, s[4:7], 0 offen\ns_endpgm\n");
            let words = assemble(&src)?;
            let k = Kernel::agc_buffer("cost", &words, 32, 32, (4, 16), 0xdead_beef, 4096);
            let job = Job {
                suite: "compile-cost".into(),
                kernel: Arc::new(k),
                target: "gfx1013".into(),
                mode: FloatMode::TITLE,
                dispatch: "0".repeat(16),
                lanes: (0..32).map(|l| (l, vec![l, l * 3, l * 7 + 1, 5])).collect(),
                independent_groups: false,
                addresses: None,
            };
            let spirv = recompiler::job::prepare(&job, Default::default())
                .map_err(|e| e.to_string())?
                .module
                .spirv
                .len();
            let t = Instant::now();
            let r = backend.run(&job);
            let secs = t.elapsed().as_secs_f64();
            println!(
                "{kind:9} N={n:3}: {spirv:7} SPIR-V words, {secs:7.3} s{}",
                if r.is_ok() { "" } else { " (failed)" }
            );
        }
    }
    Ok(())
}
