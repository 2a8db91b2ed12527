//! What the vulkan tests share: the device, llvm-mc, and a kernel in the `agc-buffer-v1` layout.
#![allow(dead_code)]

use conformance::vulkan::VulkanBackend;
use measurements::job::Job;
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::Limits;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// Debian llvm-19's assembler, the reference for gfx10 encodings.
pub const LLVM_MC: &str = "/usr/lib/llvm-19/bin/llvm-mc";

/// Whether a missing tool fails the test (CI) or skips it.
fn ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// The default Vulkan device (lavapipe in CI) under `limits`, or `None` (with a note) outside CI when
/// there is none.
pub fn vulkan_with(limits: Limits) -> Option<VulkanBackend> {
    match VulkanBackend::open(None, limits) {
        Ok(b) => Some(b),
        Err(e) => {
            assert!(
                !ci(),
                "no Vulkan device ({e}); CI must install mesa-vulkan-drivers"
            );
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// The default Vulkan device under the default limits.
pub fn vulkan() -> Option<VulkanBackend> {
    vulkan_with(Limits::default())
}

/// Whether llvm-mc is there (outside CI a missing one skips the test).
pub fn have_llvm_mc() -> bool {
    have_tool(LLVM_MC, "llvm-19")
}

/// Whether the program `tool` runs (`--version`); outside CI a missing one skips the test, in CI it fails it,
/// naming the Debian `package` CI must install.
pub fn have_tool(tool: &str, package: &str) -> bool {
    if Command::new(tool).arg("--version").output().is_ok() {
        return true;
    }
    assert!(
        !ci(),
        "{tool} (Debian {package}) is not installed; CI must install it"
    );
    eprintln!("skipped: {tool} is not installed");
    false
}

/// Assembles gfx1013 source for a wave size.
pub fn asm(wave: u32, src: &str) -> Vec<u32> {
    asm_for("gfx1013", wave, src)
}

/// Assembles source for a chip (`-mcpu`) and wave size.
pub fn asm_for(mcpu: &str, wave: u32, src: &str) -> Vec<u32> {
    let mut child = Command::new(LLVM_MC)
        .args([
            "-triple=amdgcn",
            &format!("-mcpu={mcpu}"),
            &format!("-mattr=+wavefrontsize{wave}"),
            "-show-encoding",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc (Debian llvm-19) must be installed");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(src.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "llvm-mc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(enc) = line.split("encoding: [").nth(1) {
            for b in enc.trim_end_matches(']').split(',') {
                // `-show-encoding` leaves label fixups unresolved (`A`): sources give branch offsets.
                let hex = b.trim().strip_prefix("0x").unwrap_or_else(|| {
                    panic!("llvm-mc left a fixup in `{line}`: write branch offsets as numbers")
                });
                bytes.push(u8::from_str_radix(hex, 16).unwrap());
            }
        }
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A job of one workgroup of `threads` lanes running `words`: `in` has `io.0` dwords per lane (`lanes`
/// gives them), `out` has `io.1`, filled with 0xdeadbeef.
pub fn job(
    words: &[u32],
    wave: u32,
    threads: u32,
    io: (u32, u32),
    lanes: impl Fn(u32) -> Vec<u32>,
) -> Job {
    let k = Kernel::agc_buffer("test", words, wave, threads, io, 0xdead_beef, 4096);
    Job {
        suite: "test".into(),
        kernel: Arc::new(k),
        target: "gfx1013".into(),
        mode: FloatMode::TITLE,
        dispatch: "0000000000000000".into(),
        lanes: (0..threads).map(|l| (l, lanes(l))).collect(),
        independent_groups: false,
        addresses: None,
    }
}
