//! Shared helpers of the interpreter tests: assembling with llvm-mc and building jobs.
#![allow(dead_code)]

use measurements::job::Job;
use measurements::kernel::Kernel;
use measurements::FloatMode;
use std::process::Command;
use std::sync::Arc;

/// LLVM 19's assembler, which CI installs (Debian llvm-19).
pub const LLVM_MC: &str = "/usr/lib/llvm-19/bin/llvm-mc";

/// Assembles gfx10 source for `cpu` into words with llvm-mc.
pub fn asm(cpu: &str, wave: u32, src: &str) -> Vec<u32> {
    let out = Command::new(LLVM_MC)
        .args([
            "-triple=amdgcn",
            &format!("-mcpu={cpu}"),
            &format!("-mattr=+wavefrontsize{wave}"),
            "-show-encoding",
        ])
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(src.as_bytes())?;
            c.wait_with_output()
        })
        .expect("llvm-mc (Debian llvm-19) must be installed");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("error"),
        "llvm-mc failed on:\n{src}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = Vec::new();
    for line in text.lines() {
        if let Some(enc) = line.split("encoding: [").nth(1) {
            for b in enc.trim_end_matches(']').split(',') {
                bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap());
            }
        }
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The standard test kernel: lane L loads in[4L..4L+4) into v4..v7, runs `body`, stores v10..v13 to
/// out[4L..4L+4). v10..v13 start at 0. `body` may use v20+ and s20+ freely.
pub fn test_kernel(cpu: &str, body: &str, wave: u32, threads: u32) -> Kernel {
    let src = format!(
        "v_lshlrev_b32 v1, 4, v0\n\
         buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\n\
         s_waitcnt vmcnt(0)\n\
         v_mov_b32 v10, 0\nv_mov_b32 v11, 0\nv_mov_b32 v12, 0\nv_mov_b32 v13, 0\n\
         {body}\n\
         buffer_store_dwordx4 v[10:13], v1, s[4:7], 0 offen\n\
         s_endpgm\n"
    );
    let words = asm(cpu, wave, &src);
    Kernel::agc_buffer("test", &words, wave, threads, (4, 4), 0xdead_beef, 4096)
}

/// A job running `kernel` with the given per-lane inputs in `mode` on `target`.
pub fn job(kernel: Kernel, target: &str, mode: FloatMode, inputs: &[[u32; 4]]) -> Job {
    Job {
        suite: "test".into(),
        kernel: Arc::new(kernel),
        target: target.into(),
        mode,
        dispatch: "0000000000000000".into(),
        lanes: inputs
            .iter()
            .enumerate()
            .map(|(l, i)| (l as u32, i.to_vec()))
            .collect(),
        independent_groups: false,
        addresses: None,
    }
}
