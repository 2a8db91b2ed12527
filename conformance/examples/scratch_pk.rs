use measurements::job::{Backend, Job};
use measurements::kernel::Kernel;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
fn asm(wave: u32, src: &str) -> Vec<u32> {
    let mut c = Command::new("llvm-mc-19")
        .args([
            "-triple=amdgcn",
            "-mcpu=gfx1013",
            &format!("-mattr=+wavefrontsize{wave}"),
            "-filetype=obj",
            "-o",
            "/tmp/k.o",
            "-",
        ])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(src.as_bytes()).unwrap();
    assert!(c.wait().unwrap().success());
    let o = Command::new("llvm-objcopy-19")
        .args([
            "-O",
            "binary",
            "--only-section=.text",
            "/tmp/k.o",
            "/tmp/k.bin",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    std::fs::read("/tmp/k.bin")
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
fn main() {
    let be = conformance::backends::VulkanBackend::open(None, Default::default()).unwrap();
    let m = reference_model::exec::ModelBackend::default();
    let body = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let wave: u32 = std::env::args()
        .nth(2)
        .map(|w| w.parse().unwrap())
        .unwrap_or(32);
    let src = format!("v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n{body}\nv_lshlrev_b32 v1, 6, v0\nbuffer_store_dwordx4 v[10:13], v1, s[4:7], 0 offen\nbuffer_store_dwordx4 v[14:17], v1, s[4:7], 0 offen offset:16\ns_endpgm\n");
    let w = asm(wave, &src);
    let k = Kernel::agc_buffer("t", &w, wave, wave, (4, 16), 0xdead_beef, 4096);
    let job = Job {
        suite: "t".into(),
        kernel: Arc::new(k),
        target: "gfx1013".into(),
        mode: measurements::FloatMode::TITLE,
        dispatch: "0".repeat(16),
        lanes: (0..wave)
            .map(|_| (0, vec![0, 0, 0, 0]))
            .enumerate()
            .map(|(i, (_, v))| (i as u32, v))
            .collect(),
        independent_groups: false,
        addresses: None,
    };
    let p = recompiler::job::prepare(&job, Default::default()).unwrap();
    let bytes: Vec<u8> = p
        .module
        .spirv
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write("/tmp/pk.spv", bytes).unwrap();
    let a = m.run(&job).unwrap();
    let b = be.run(&job).unwrap();
    let (x, y) = (a.array("out").unwrap(), b.array("out").unwrap());
    for l in [0usize, wave as usize - 1] {
        println!("lane {l} model  {:08x?}", &x[l * 16..l * 16 + 8]);
        println!("lane {l} vulkan {:08x?}", &y[l * 16..l * 16 + 8]);
    }
}
#[allow(dead_code)]
fn unused() {}
