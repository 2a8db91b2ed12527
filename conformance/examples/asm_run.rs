use measurements::job::{Backend, Job};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use std::sync::Arc;
fn asm(wave: u32, src: &str) -> Vec<u32> {
    let mut c = std::process::Command::new("/usr/lib/llvm-19/bin/llvm-mc")
        .args([
            "-triple=amdgcn",
            "-mcpu=gfx1013",
            &format!("-mattr=+wavefrontsize{wave}"),
            "-show-encoding",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    c.stdin.take().unwrap().write_all(src.as_bytes()).unwrap();
    let out = c.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
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
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let wave: u32 = a[2].parse().unwrap();
    let threads: u32 = a[3].parse().unwrap();
    let body = std::fs::read_to_string(&a[1]).unwrap();
    let src = format!("v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\nv_mov_b32 v10, 0\nv_mov_b32 v11, 0\nv_mov_b32 v12, 0\nv_mov_b32 v13, 0\n{body}\nbuffer_store_dwordx4 v[10:13], v1, s[4:7], 0 offen\ns_endpgm\n");
    let words = asm(wave, &src);
    let k = Kernel::agc_buffer("test", &words, wave, threads, (4, 4), 0xdead_beef, 4096);
    let job = Job {
        suite: "t".into(),
        kernel: Arc::new(k),
        target: "gfx1013".into(),
        mode: FloatMode::TITLE,
        dispatch: "0".into(),
        lanes: (0..threads)
            .map(|l| (l, vec![l * 3 + 1, 0x1000 + l, l ^ 5, 7]))
            .collect(),
    };
    let b = conformance::vulkan::VulkanBackend::open(None, Default::default()).unwrap();
    let r = b.run(&job);
    let m = reference_model::exec::ModelBackend::default().run(&job);
    match (&r, &m) {
        (Ok(x), Ok(y)) => {
            let (x, y) = (x.array("out").unwrap(), y.array("out").unwrap());
            let mut bad = 0;
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if p != q {
                    bad += 1;
                    if bad < 20 {
                        println!(
                            "out[{i}] (lane {} col {}) vulkan {p:08x} model {q:08x}",
                            i / 4,
                            i % 4
                        );
                    }
                }
            }
            println!("{bad} differ");
        }
        _ => println!(
            "vulkan {:?}\nmodel {:?}",
            r.as_ref().err(),
            m.as_ref().err()
        ),
    }
}
